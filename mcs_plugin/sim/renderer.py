"""One-pass RGB + metric depth + geom-id renderer for MuJoCo models (moderngl over headless EGL).

The renderer draws the geoms of a MuJoCo model (MuJoCo world frame, z up) from a pinhole camera.
One draw pass writes three attachments: RGBA8 colour, R32F z-depth in metres (view-space -z written
by the fragment shader, so it is exact for planar faces, not a linearised depth buffer) and R32F
geom id + 1 (a float attachment because glClear of an integer attachment is undefined in GL; ids are
exact below 2^24 and come back as int32). It runs on Mesa llvmpipe (CPU) and on NVIDIA EGL, with no
display.

Geometry
- One unit mesh per primitive type (box, sphere, ellipsoid, cylinder, capsule, plane) is built once
  and drawn instanced: one draw call per type, per-instance pose, scale, colour and id in a buffer.
  Each MuJoCo mesh asset is one more instanced draw (all geoms that use that asset).
- Sizes follow MuJoCo: box half-sizes, sphere radius, ellipsoid radii, cylinder and capsule radius
  and half-length (capsule ends are true hemispheres), plane half-sizes (0 = infinite, drawn as a
  quad as large as the far plane). Sizes are read from the model when the Renderer is built.
- Curved primitives are tessellated with vertices on the true surface: 32 segments around and 16
  rings pole to pole for images at least 256 px high (the drawn surface lies inside the true one by
  at most 1 % of the radius, 5 mm for a 0.5 m radius), 24 x 12 below that (1.7 %), where vertex
  work dominates the frame time. Silhouette pixels of curved geoms can therefore differ from an
  exact ray cast (``mujoco.mj_ray``); flat faces (boxes, planes, meshes) match it to float
  precision.
- Not drawn: geoms whose model rgba alpha is 0, geoms in geom group 5 (MuJoCo's convention for
  hidden helpers), and types other than the seven above (height fields, SDFs). Callers hide more
  per frame with ``geom_visible``.
- Primitives are drawn with back-face culling (a camera inside a box sees none of it, like Unity);
  planes and mesh assets are drawn double-sided.

Shading (GLSL in ``render_shaders``): colour = geom_rgb * (ambient + key + fill directional lights, Lambert,
per vertex; smooth normals on curved primitives, crease-smoothed on mesh assets), times a procedural
pattern of the geom's surface class (``geom_surface``, codes of ``surfaces.SURFACE_CODES``: wood grain,
brushed metal, fabric weave, carpet, drywall...), plus a Blinn-Phong highlight of the key light for shiny
classes. Lights and pattern placement come from a ``look.Look`` (default: ``DEFAULT_LOOK``). Depth and
ids do not depend on either. Background: rgb 0, depth = far, id = -1.

Determinism: the same inputs give bit-identical outputs across calls and Renderer instances (the
draw order is fixed at construction).

Context: one EGL context per thread of a process, made on first use and shared by the Renderers
created in that thread (a forked child makes its own). A Renderer works only in the thread (and
process) that created it; elsewhere render() raises RenderError. Rendering threads (llvmpipe):
set LP_NUM_THREADS before the first Renderer (0 renders in the calling thread; the default is one
rasterizer thread per CPU, which oversubscribes machines running one simulator per core).
"""

from __future__ import annotations

import math
import os
import threading
from dataclasses import dataclass

import mujoco
import numpy as np

from mcs_plugin.constants import CAMERA_FIELD_OF_VIEW, CLIPPING_PLANES, GROUP_ABSENT
from mcs_plugin.sim.camera import pixel_ray, projection_params
from mcs_plugin.sim.geom_types import (
    GEOM_BOX, GEOM_CAPSULE, GEOM_CYLINDER, GEOM_ELLIPSOID, GEOM_MESH, GEOM_PLANE, GEOM_SPHERE,
)
from mcs_plugin.sim.look import DEFAULT_LOOK, Look
from mcs_plugin.sim.render_meshes import UNIT_MESHES, asset_mesh
from mcs_plugin.sim.render_shaders import FRAGMENT_SHADER, vertex_shader
from mcs_plugin.sim.surfaces import SURFACES

__all__ = ["Frame", "RenderError", "Renderer", "projection_params"]

_EGL_HINT = (
    "could not create a headless OpenGL (EGL) context. On Debian/Ubuntu install the packages "
    "libegl1 libegl-mesa0 libgl1-mesa-dri (Mesa, CPU rendering), or use the NVIDIA driver's EGL "
    "(libnvidia-gl / libEGL_nvidia) on a GPU machine."
)

# Tessellation of curved primitives: (segments around the axis, rings pole to pole; even, so that
# capsules split at the equator), by image height.
_FINE, _COARSE, _FINE_MIN_HEIGHT = (32, 16), (24, 12), 256

# Instance record: pos(3) rot(9, row-major = GLSL mat3 of R^T) scale(3) cap(1) rgb(3) id + 1 (1) surface (1)
# pattern axes (1).
_INST_FLOATS = 22
_INST_FORMAT = "3f 9f 3f 1f 3f 1f 1f 1f/i"
_INST_ATTRS = ("i_pos", "i_rot", "i_scale", "i_cap", "i_rgb", "i_id", "i_surface", "i_axes")
# Orders of the geom's axes, longest first, by the code the vertex shader's pattern_axes() takes.
_AXES_ORDERS = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))
_VERT_FORMAT = "3f 3f 1f"
_VERT_ATTRS = ("in_pos", "in_normal", "in_cap")


class RenderError(RuntimeError):
    """Raised when no headless OpenGL (EGL) context can be created."""


@dataclass
class Frame:
    """One rendered view: RGB, metric z-depth and geom ids (None for outputs not asked for)."""

    rgb: np.ndarray | None  # (H, W, 3) uint8, row 0 = top of the image
    depth: np.ndarray | None  # (H, W) float32, metres along the viewing axis; far where empty
    geom_ids: np.ndarray | None  # (H, W) int32, MuJoCo geom id, -1 where nothing was drawn


def _camera_basis(cam_forward, cam_up):
    """Orthonormal (right, up, forward) of a camera looking along cam_forward, as float tuples."""
    fx, fy, fz = (float(v) for v in cam_forward)
    ux, uy, uz = (float(v) for v in cam_up)
    fn = math.sqrt(fx * fx + fy * fy + fz * fz)
    if not fn > 0.0:
        raise ValueError("cam_forward must be a non-zero vector")
    fx, fy, fz = fx / fn, fy / fn, fz / fn
    rx, ry, rz = fy * uz - fz * uy, fz * ux - fx * uz, fx * uy - fy * ux  # forward x up
    rn = math.sqrt(rx * rx + ry * ry + rz * rz)
    if not rn > 1e-12 * math.sqrt(ux * ux + uy * uy + uz * uz):
        raise ValueError("cam_up must be non-zero and not parallel to cam_forward")
    rx, ry, rz = rx / rn, ry / rn, rz / rn
    return (rx, ry, rz), (ry * fz - rz * fy, rz * fx - rx * fz, rx * fy - ry * fx), (fx, fy, fz)


# ----------------------------------------------------------------------------------------------
# Shared EGL context (one per thread: a GL context is current in one thread at a time).

_local = threading.local()


def _context():
    """This thread's moderngl EGL context, created (and made current) on first use."""
    if getattr(_local, "ctx", None) is None or _local.pid != os.getpid():
        try:
            import moderngl

            ctx = moderngl.create_standalone_context(backend="egl", require=330)
        except Exception as exc:  # missing libEGL, no usable driver, ...
            raise RenderError(f"{_EGL_HINT} ({type(exc).__name__}: {exc})") from exc
        _local.ctx, _local.pid = ctx, os.getpid()
    return _local.ctx


class _Group:
    """One instanced draw: a unit mesh (or mesh asset) and the geoms drawn with it."""

    __slots__ = ("cull", "ibo", "inst", "start", "stop", "vao", "vbo")

    def __init__(self, vbo, ibo, inst, vao, start, stop, cull):
        self.vbo, self.ibo, self.inst, self.vao = vbo, ibo, inst, vao
        self.start, self.stop, self.cull = start, stop, cull


class Renderer:
    """Draws a MuJoCo model's geoms from a pinhole camera: RGB, z-depth and geom ids in one pass."""

    def __init__(
        self,
        model: mujoco.MjModel,
        width: int,
        height: int,
        fov_y: float = CAMERA_FIELD_OF_VIEW,
        near: float = CLIPPING_PLANES[0],
        far: float = CLIPPING_PLANES[1],
        geom_surface: np.ndarray | None = None,
        look: Look = DEFAULT_LOOK,
    ):
        """geom_surface: (ngeom,) surface class codes (None: all plain); look: lights and pattern placement."""
        if width <= 0 or height <= 0:
            raise ValueError("width and height must be positive")
        if not 0 < near < far:
            raise ValueError("need 0 < near < far")
        self.model = model
        self.width, self.height = int(width), int(height)
        self.fov_y, self.near, self.far = float(fov_y), float(near), float(far)
        self.fx, self.fy, self.cx, self.cy = projection_params(self.width, self.height, self.fov_y)
        self._closed = False
        self._resources = []
        self._owner = None
        self._ctx = ctx = _context()
        self._owner = (os.getpid(), threading.get_ident())
        # A framebuffer beyond the GL limits is "not complete" (or worse, inside the driver): refuse it here.
        limit = min(int(ctx.info["GL_MAX_RENDERBUFFER_SIZE"]), int(ctx.info["GL_MAX_TEXTURE_SIZE"]))
        if max(self.width, self.height) > limit:
            raise ValueError(f"image size {self.width} x {self.height} exceeds this GL's limit of {limit} pixels")
        self._ngeom = int(model.ngeom)
        surface = np.zeros(self._ngeom, np.float32) if geom_surface is None else np.asarray(geom_surface, np.float32)
        if surface.shape != (self._ngeom,) or not np.isin(surface, np.arange(len(SURFACES))).all():
            raise ValueError(f"geom_surface must be ({self._ngeom},) codes below {len(SURFACES)}")
        self.look = look
        self._build_instances(model)
        self._inst[:, 20] = surface[self._order]
        self._inst[:, 21] = self._axes_codes(model)
        try:
            self._build_gl(ctx, model)
        except Exception:
            self.close()
            raise

    # -- construction ----------------------------------------------------------------------------

    def _build_instances(self, model):
        """Choose the drawn geoms, their draw order, and the static part of the instance records."""
        ngeom = model.ngeom
        types = np.asarray(model.geom_type, np.int64)
        keep = np.asarray(model.geom_rgba)[:, 3] > 0
        keep &= np.asarray(model.geom_group) != GROUP_ABSENT  # absent geoms (triggers, removed parts) are never drawn
        # Group key: primitives by type, meshes by asset. Draw small things first (early depth
        # test spares the fragment work behind them), planes last.
        keys, members = [], {}
        for g in range(ngeom):
            t = int(types[g])
            if not keep[g]:
                continue
            if t == GEOM_MESH:
                key = (GEOM_MESH, int(model.geom_dataid[g]))
                if key[1] < 0:
                    continue
            elif t in UNIT_MESHES:
                key = (t, -1)
            else:
                continue  # hfield, sdf, ...: not drawn
            if key not in members:
                members[key] = []
                keys.append(key)
            members[key].append(g)
        rbound = np.asarray(model.geom_rbound, np.float64)

        def group_rank(key):
            gs = members[key]
            return (key[0] == GEOM_PLANE, float(np.median(rbound[gs])), key)

        keys.sort(key=group_rank)
        order, spans = [], []
        for key in keys:
            gs = sorted(members[key], key=lambda g: (rbound[g], g))
            spans.append((key, len(order), len(order) + len(gs)))
            order += gs
        self._order = np.asarray(order, np.int64)
        self._spans = spans
        n = len(order)
        inst = np.zeros((n, _INST_FLOATS), np.float32)
        size = np.asarray(model.geom_size, np.float64)
        for k, g in enumerate(order):
            t, s = int(types[g]), size[g]
            cap = 0.0
            if t == GEOM_PLANE:
                big = 2.0 * self.far
                scale = (s[0] if s[0] > 0 else big, s[1] if s[1] > 0 else big, 1.0)
            elif t == GEOM_SPHERE:
                scale = (s[0], s[0], s[0])
            elif t in (GEOM_ELLIPSOID, GEOM_BOX):
                scale = (s[0], s[1], s[2])
            elif t == GEOM_CYLINDER:
                scale = (s[0], s[0], s[1])
            elif t == GEOM_CAPSULE:
                scale, cap = (s[0], s[0], s[0]), s[1]
            else:  # mesh: vertices already in the geom frame
                scale = (1.0, 1.0, 1.0)
            inst[k, 12:15] = scale
            inst[k, 15] = cap
        inst[:, 19] = self._order + 1
        self._inst = inst

    def _axes_codes(self, model: mujoco.MjModel) -> np.ndarray:
        """Per drawn geom, the code of its axes ordered longest first (patterns run along the longest)."""
        half = np.asarray(model.geom_aabb, np.float64)[self._order, 3:6]
        orders = np.argsort(-half, axis=1, kind="stable")
        return np.array([_AXES_ORDERS.index(tuple(int(a) for a in o)) for o in orders], np.float32)

    def _track(self, obj):
        self._resources.append(obj)
        return obj

    def _build_gl(self, ctx, model):
        """Program, unit meshes, instance buffers and the framebuffer."""
        W, H = self.width, self.height
        tess = _FINE if H >= _FINE_MIN_HEIGHT else _COARSE
        self._prog = self._track(
            ctx.program(vertex_shader=vertex_shader(len(SURFACES)), fragment_shader=FRAGMENT_SHADER)
        )
        self._u_vp = self._prog["u_vp"]
        self._u_zrow = self._prog["u_zrow"]
        self._u_cam = self._prog["u_cam"]
        self._set_look(self._prog, self.look)
        self._groups = []
        for key, start, stop in self._spans:
            t, mesh_id = key
            if t == GEOM_MESH:
                verts, idx = asset_mesh(model, mesh_id)
            else:
                verts, idx = UNIT_MESHES[t](*tess)
            if len(idx) == 0:
                continue
            vbo = self._track(ctx.buffer(verts.tobytes()))
            ibo = self._track(ctx.buffer(idx.tobytes()))
            inst = self._track(ctx.buffer(reserve=(stop - start) * _INST_FLOATS * 4))
            vao = self._track(
                ctx.vertex_array(
                    self._prog,
                    [(vbo, _VERT_FORMAT, *_VERT_ATTRS), (inst, _INST_FORMAT, *_INST_ATTRS)],
                    index_buffer=ibo,
                    index_element_size=4,
                )
            )
            cull = t not in (GEOM_MESH, GEOM_PLANE)
            self._groups.append(_Group(vbo, ibo, inst, vao, start, stop, cull))
        self._tex_rgb = self._track(ctx.texture((W, H), 4, dtype="f1"))
        self._tex_depth = self._track(ctx.texture((W, H), 1, dtype="f4"))
        self._tex_ids = self._track(ctx.texture((W, H), 1, dtype="f4"))
        self._zbuf = self._track(ctx.depth_renderbuffer((W, H)))
        self._fbo = self._track(
            ctx.framebuffer([self._tex_rgb, self._tex_depth, self._tex_ids], self._zbuf)
        )
        self._fbo_depth = self._track(ctx.framebuffer([self._tex_depth]))
        self._ids_f32 = np.empty((H, W), np.float32)

    @staticmethod
    def _set_look(prog, look: Look) -> None:
        """Lights, pattern placement and the surface table (frequencies and amplitudes scaled by the look)."""
        prog["u_key"].value = look.key
        prog["u_fill"].value = look.fill
        prog["u_light"].value = (look.ambient, look.key_strength, look.fill_strength)
        prog["u_light_rgb"].value = look.light_rgb
        prog["u_highlight"].value = tuple(look.key_strength * c for c in look.light_rgb)
        prog["u_offset"].value = look.pattern_offset
        table = np.zeros((len(SURFACES), 4, 4), np.float32)
        for code, surf in enumerate(SURFACES.values()):
            table[code, 0] = (*(look.pattern_scale * k for k in surf.k1), surf.warp)
            table[code, 1] = (*(look.pattern_scale * k for k in surf.k2), surf.cross)
            table[code, 2] = (*(look.pattern_scale * k for k in surf.k3), look.pattern_strength * surf.amplitude)
            table[code, 3] = (surf.specular, surf.shininess, 0.0, 0.0)
        prog["u_surface"].write(table.tobytes())

    # -- camera ----------------------------------------------------------------------------------

    def _matrices(self, cam_pos, cam_forward, cam_up):
        """(view-projection, column-major 16-tuple, with the image y flipped so row 0 is the
        top; z-depth row (forward, -forward . cam_pos))."""
        cx, cy, cz = (float(v) for v in cam_pos)
        r, u, f = _camera_basis(cam_forward, cam_up)
        n, fa = self.near, self.far
        sx = 2.0 * self.fx / self.width
        sy = -2.0 * self.fy / self.height  # flipped: GL row 0 (read back first) = image top
        a = (fa + n) / (fa - n)
        b = -2.0 * fa * n / (fa - n)
        rc = r[0] * cx + r[1] * cy + r[2] * cz
        uc = u[0] * cx + u[1] * cy + u[2] * cz
        fc = f[0] * cx + f[1] * cy + f[2] * cz
        # clip = P @ V @ world; V rows (r, -rc), (u, -uc), (-f, fc); w_clip = forward . (p - c).
        vp = (
            sx * r[0], sy * u[0], a * f[0], f[0],
            sx * r[1], sy * u[1], a * f[1], f[1],
            sx * r[2], sy * u[2], a * f[2], f[2],
            -sx * rc, -sy * uc, -a * fc + b, -fc,
        )
        return vp, (f[0], f[1], f[2], -fc)

    def pixel_ray(self, px: float, py: float, cam_pos, cam_forward, cam_up) -> np.ndarray:
        """Unit world direction through pixel (px right, py down, top-left origin, centres +0.5)."""
        _camera_basis(cam_forward, cam_up)  # same validation as render()
        return pixel_ray(px, py, self.width, self.height, self.fov_y, np.asarray(cam_forward, float), np.asarray(cam_up, float))

    # -- rendering -------------------------------------------------------------------------------

    def render(
        self,
        data: mujoco.MjData,
        cam_pos,
        cam_forward,
        cam_up,
        geom_rgb: np.ndarray,
        geom_visible: np.ndarray,
        want_rgb: bool = True,
        want_depth: bool = True,
        want_ids: bool = True,
    ) -> Frame:
        """Render the geoms at their poses in data (fresh arrays, not reused by later calls)."""
        if self._closed:
            raise RuntimeError("Renderer is closed")
        if (os.getpid(), threading.get_ident()) != self._owner:
            raise RenderError(
                "a Renderer works only in the process and thread that created it; "
                "create one per worker process / thread"
            )
        vp, zrow = self._matrices(cam_pos, cam_forward, cam_up)
        order, inst = self._order, self._inst
        ngeom = self._ngeom
        geom_rgb = np.asarray(geom_rgb)
        geom_visible = np.asarray(geom_visible, bool)
        if geom_rgb.shape != (ngeom, 3) or geom_visible.shape != (ngeom,):
            raise ValueError(
                f"geom_rgb must be ({ngeom}, 3) and geom_visible ({ngeom},); "
                f"got {geom_rgb.shape} and {geom_visible.shape}"
            )
        if len(order):
            inst[:, 0:3] = data.geom_xpos[order]
            inst[:, 3:12] = data.geom_xmat[order]
            inst[:, 16:19] = geom_rgb[order]
            vis = geom_visible[order]
            all_vis = bool(vis.all())

        ctx = self._ctx
        fbo = self._fbo
        fbo.use()
        fbo.clear(0.0, 0.0, 0.0, 0.0, depth=1.0)  # rgb 0, ids 0 (= -1 after the shift), z-buffer
        self._fbo_depth.use()
        self._fbo_depth.clear(self.far, 0.0, 0.0, 0.0)  # metric depth attachment = far
        fbo.use()
        ctx.enable(ctx.DEPTH_TEST)
        ctx.disable(ctx.BLEND)
        ctx.depth_func = "<"
        ctx.front_face = "cw"  # the y flip in the projection mirrors the winding
        ctx.cull_face = "back"
        self._u_vp.value = vp
        self._u_zrow.value = zrow
        self._u_cam.value = tuple(float(v) for v in cam_pos)
        culling = None
        for grp in self._groups:
            rows = inst[grp.start : grp.stop]
            if not all_vis:
                rows = rows[vis[grp.start : grp.stop]]
                if len(rows) == 0:
                    continue
            grp.inst.write(rows)
            if grp.cull != culling:
                (ctx.enable if grp.cull else ctx.disable)(ctx.CULL_FACE)
                culling = grp.cull
            grp.vao.render(ctx.TRIANGLES, instances=len(rows))

        W, H = self.width, self.height
        rgb = depth = ids = None
        if want_rgb:
            rgb = np.empty((H, W, 3), np.uint8)
            fbo.read_into(rgb, components=3, attachment=0, alignment=1, dtype="f1")
        if want_depth:
            depth = np.empty((H, W), np.float32)
            fbo.read_into(depth, components=1, attachment=1, alignment=1, dtype="f4")
        if want_ids:
            ids_f = self._ids_f32  # scratch, reused
            fbo.read_into(ids_f, components=1, attachment=2, alignment=1, dtype="f4")
            ids = np.empty((H, W), np.int32)
            np.subtract(ids_f, 1.0, out=ids, casting="unsafe")
        return Frame(rgb=rgb, depth=depth, geom_ids=ids)

    # -- lifetime --------------------------------------------------------------------------------

    def close(self):
        """Release this renderer's GL objects (the shared context stays for later Renderers)."""
        if self._closed:
            return
        self._closed = True
        # GL objects can only be released where their context is current; elsewhere (a forked
        # child, another thread, a late garbage collection) they are left to the context.
        if (os.getpid(), threading.get_ident()) == self._owner:
            for obj in reversed(self._resources):
                try:
                    obj.release()
                except Exception:
                    pass
        self._resources = []
        self._groups = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            if not self._closed:
                self.close()
        except Exception:
            pass
