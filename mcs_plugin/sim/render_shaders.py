"""GLSL of the renderer's one program: lit, patterned colour + metric z-depth + geom id in one pass.

Vertex stage: instance pose and scale; ambient + key + fill directional light (Lambert) and a Blinn-Phong
highlight of the key light, per vertex (exact for flat faces' diffuse light; curved primitives carry true
normals, so they shade smoothly); the three pattern phases k.p of `mcs_plugin.sim.surfaces`, p in the geom's
frame with its axes ordered longest first so that wood grain and brushing run along an object's length
(phases are linear in position, so interpolating them is exact). Fragment stage: only the pattern tone,
with a parabolic sine and each wave faded out where a pixel spans more than about a radian of it
(anti-aliasing from the phases' screen derivatives). The split keeps the per-pixel work small: on Mesa's
llvmpipe (CPU) a per-pixel highlight or GLSL sin() cost more than the whole budget (benchmarks/RESULTS.md).
Depth and id never depend on lighting or patterns.
"""

from __future__ import annotations

__all__ = ["FRAGMENT_SHADER", "vertex_shader"]

_VERTEX_TEMPLATE = """
#version 330
uniform mat4 u_vp;        // world -> clip
uniform vec4 u_zrow;      // (forward, -dot(forward, cam_pos)): world -> metric z-depth
uniform vec3 u_cam;       // camera position (world)
uniform vec3 u_key;       // direction towards the key light (world, unit)
uniform vec3 u_fill;      // direction towards the fill light
uniform vec3 u_light;     // ambient, key and fill strengths
uniform vec3 u_light_rgb; // light colour
uniform vec3 u_highlight; // key strength x light colour
uniform vec3 u_offset;    // added to pattern coordinates (metres)
uniform vec4 u_surface[4 * N_SURFACES];  // per class: (k1, warp), (k2, cross), (k3, amplitude), (specular, shininess)
in vec3 in_pos;
in vec3 in_normal;
in float in_cap;          // +1 / -1 for capsule hemisphere vertices, 0 otherwise
in vec3 i_pos;
in mat3 i_rot;            // R^T (filled from MuJoCo's row-major xmat)
in vec3 i_scale;
in float i_cap;           // capsule half-length
in vec3 i_rgb;
in float i_id;            // geom id + 1 (exact in float32 below 2^24)
in float i_surface;       // surface class code
in float i_axes;          // the geom's axes ordered longest first (code of pattern_axes)
out vec3 v_rgb;           // base colour under ambient + diffuse light, plus the key light's highlight
out vec3 v_phase;         // pattern phases k1.p, k2.p, k3.p (radians)
out float v_depth;
flat out float v_id;
flat out vec3 v_pattern;  // warp, cross, amplitude
vec3 pattern_axes(vec3 v, int code) {                     // v in the geom's axes, longest first
    if (code == 0) return v.xyz;
    if (code == 1) return v.xzy;
    if (code == 2) return v.yxz;
    if (code == 3) return v.yzx;
    if (code == 4) return v.zxy;
    return v.zyx;
}
void main() {
    vec3 local = in_pos * i_scale + vec3(0.0, 0.0, in_cap * i_cap);
    vec3 world = local * i_rot + i_pos;                       // R * local + pos
    vec3 n = normalize((in_normal / i_scale) * i_rot);        // R * (n / s)
    float light = u_light.x + u_light.y * max(dot(n, u_key), 0.0) + u_light.z * max(dot(n, u_fill), 0.0);
    int s = 4 * int(i_surface);
    vec3 p = pattern_axes(local, int(i_axes)) + u_offset;
    v_phase = vec3(dot(p, u_surface[s].xyz), dot(p, u_surface[s + 1].xyz), dot(p, u_surface[s + 2].xyz));
    v_pattern = vec3(u_surface[s].w, u_surface[s + 1].w, u_surface[s + 2].w);
    vec3 h = normalize(u_key + normalize(u_cam - world));
    float shine = u_surface[s + 3].x * pow(max(dot(n, h), 0.0), u_surface[s + 3].y);    // Blinn-Phong
    v_rgb = i_rgb * min(light, 1.0) * u_light_rgb + shine * u_highlight;
    v_depth = dot(u_zrow, vec4(world, 1.0));
    v_id = i_id;
    gl_Position = u_vp * vec4(world, 1.0);
}
"""

FRAGMENT_SHADER = """
#version 330
in vec3 v_rgb;
in vec3 v_phase;
in float v_depth;
flat in float v_id;
flat in vec3 v_pattern;
layout(location = 0) out vec4 o_rgb;
layout(location = 1) out float o_depth;
layout(location = 2) out float o_id;
float wave(float x) {                                         // sin(x) to within 0.06, a parabola per half period
    float y = 2.0 * fract(x * 0.15915494) - 1.0;             // x / 2 pi, a period mapped to [-1, 1)
    return -4.0 * y * (1.0 - abs(y));
}
void main() {
    // Each wave fades out between 0.8 and 1.6 radians per pixel (the phases' screen derivatives).
    vec3 rate = fwidth(v_phase);
    float main_fade = clamp(2.0 - 1.25 * (rate.x + v_pattern.x * rate.y), 0.0, 1.0);
    float cross_fade = clamp(2.0 - 1.25 * rate.z, 0.0, 1.0);
    float pattern = wave(v_phase.x + v_pattern.x * wave(v_phase.y)) * mix(1.0, wave(v_phase.z), v_pattern.y * cross_fade);
    float tone = 1.0 + v_pattern.z * main_fade * pattern;
    o_rgb = vec4(min(v_rgb * tone, vec3(1.0)), 1.0);
    o_depth = v_depth;
    o_id = v_id;   // geom id + 1; 0 = background (cleared), shifted back after read-back
}
"""


def vertex_shader(n_surfaces: int) -> str:
    """The vertex shader for a surface table of n_surfaces classes."""
    return _VERTEX_TEMPLATE.replace("N_SURFACES", str(int(n_surfaces)))
