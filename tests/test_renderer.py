"""Tests of the embedded simulator's renderer: ids, metric depth (against mj_ray), colour, flags."""

from __future__ import annotations

import math
import threading

import mujoco
import numpy as np
import pytest

from mcs_plugin.sim import renderer as renderer_mod
from mcs_plugin.sim.geom_types import GEOM_BOX, GEOM_MESH, GEOM_PLANE
from mcs_plugin.sim.renderer import Frame, RenderError, Renderer, projection_params

W, H = 600, 400
FAR = 150.0
UP = np.array([0.0, 0.0, 1.0])
FWD = np.array([1.0, 0.0, 0.0])
TET = 0.6  # tetrahedron edge along the axes

# Objects sit on a line along y, 4 m apart; each test camera stands 3 m in front (-x) of one.
SCENE = f"""
<mujoco>
  <asset><mesh name="tet" vertex="0 0 0  {TET} 0 0  0 {TET} 0  0 0 {TET}"/></asset>
  <worldbody>
    <geom name="floor" type="box" size="20 40 0.5" pos="0 10 -0.5"/>
    <geom name="box" type="box" size="0.5 0.5 0.5" pos="0 0 0.5"/>
    <geom name="sphere" type="sphere" size="0.4" pos="0 4 0.4"/>
    <geom name="cylinder" type="cylinder" size="0.3 0.5" pos="0 8 0.5"/>
    <geom name="capsule" type="capsule" size="0.25 0.3" pos="0 12 0.55"/>
    <geom name="ellipsoid" type="ellipsoid" size="0.3 0.2 0.4" pos="0 16 0.4"/>
    <geom name="tet" type="mesh" mesh="tet" pos="0 20 0.5"/>
    <geom name="tilted" type="box" size="0.3 0.2 0.4" pos="0 24 0.6" euler="20 30 40"/>
    <geom name="tilted_capsule" type="capsule" size="0.15 0.3" pos="0 28 0.6" euler="60 0 30"/>
    <geom name="tilted_cylinder" type="cylinder" size="0.3 0.2" pos="0 32 0.6" euler="0 50 20"/>
  </worldbody>
</mujoco>
"""

# Distance from a camera 3 m in front of the object's centre (looking +x) to the surface it sees.
# The tetrahedron's geom frame is at its centroid (TET / 4 from each axis face, MuJoCo recentres
# meshes), so its face x = 0 is 3 - TET / 4 away.
ANALYTIC = {
    "box": 2.5, "sphere": 2.6, "cylinder": 2.7, "capsule": 2.75, "ellipsoid": 2.7, "tet": 3.0 - TET / 4,
}
GROUPS_0_TO_4 = np.array([1, 1, 1, 1, 1, 0], np.uint8)  # the renderer skips group 5
FLAT = (GEOM_BOX, GEOM_PLANE, GEOM_MESH)


@pytest.fixture(scope="module")
def scene():
    model = mujoco.MjModel.from_xml_string(SCENE)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return model, data


@pytest.fixture(scope="module")
def rend(scene):
    r = Renderer(scene[0], W, H)
    yield r
    r.close()


def gid(model, name):
    return mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, name)


def colours(model):
    rgb = np.full((model.ngeom, 3), 0.5)
    rgb[gid(model, "box")] = (0.9, 0.1, 0.1)
    rgb[gid(model, "sphere")] = (0.1, 0.8, 0.1)
    return rgb


def all_visible(model):
    return np.ones(model.ngeom, bool)


def camera_for(model, data, name):
    """Camera 3 m in front (-x) of the geom's centre, looking +x."""
    return data.geom_xpos[gid(model, name)] - 3.0 * FWD


def check_against_mj_ray(r, model, data, frame, cam, fwd, up, step=37):
    """Compare depth and ids with mj_ray on a pixel grid; returns how many hit pixels were compared."""
    compared = 0
    for py in range(5, r.height, step):
        for px in range(3, r.width, step):
            ray = r.pixel_ray(px + 0.5, py + 0.5, cam, fwd, up)
            geomid = np.array([-1], np.int32)
            normal = np.zeros(3)
            dist = mujoco.mj_ray(model, data, cam, ray, GROUPS_0_TO_4, 1, -1, geomid, normal)
            got_id, got_depth = frame.geom_ids[py, px], frame.depth[py, px]
            if dist < 0:
                assert got_id == -1, (px, py, got_id)
                assert got_depth == FAR
                continue
            z = dist * float(ray @ (fwd / np.linalg.norm(fwd)))
            if z > FAR:
                continue
            g = int(geomid[0])
            if model.geom_type[g] in FLAT:
                tol = 1e-3 * z + 1e-4
            elif abs(float(normal @ ray)) > 0.5:  # tessellated surface: skip the silhouette band
                # vertices lie on the surface; facets sink by <= 1.7 % of the radius
                tol = 0.017 * model.geom_rbound[g] / abs(float(normal @ ray)) + 1e-4
            else:
                continue
            assert got_id == g, (px, py, got_id, g)
            assert abs(got_depth - z) < tol, (px, py, got_depth, z)
            compared += 1
    return compared


# (a) and (b): the object in front of the camera, at its analytic distance.
@pytest.mark.parametrize("name", sorted(ANALYTIC))
def test_centre_pixel_id_and_analytic_depth(scene, rend, name):
    model, data = scene
    cam = camera_for(model, data, name)
    f = rend.render(data, cam, FWD, UP, colours(model), all_visible(model))
    assert f.geom_ids[H // 2, W // 2] == gid(model, name)
    assert abs(f.depth[H // 2, W // 2] - ANALYTIC[name]) < 0.01
    # the object covers a block around the centre
    assert (f.geom_ids[H // 2 - 10 : H // 2 + 10, W // 2 - 10 : W // 2 + 10] == gid(model, name)).all()


# (b): depth and ids agree with mj_ray along pixel_ray, also for rotated geoms.
@pytest.mark.parametrize("name", sorted(ANALYTIC) + ["tilted", "tilted_capsule", "tilted_cylinder"])
def test_depth_and_ids_match_mj_ray(scene, rend, name):
    model, data = scene
    cam = camera_for(model, data, name) + np.array([0.0, 0.1, 0.3])
    fwd = np.array([1.0, -0.03, -0.1])
    f = rend.render(data, cam, fwd, UP, colours(model), all_visible(model))
    n = check_against_mj_ray(rend, model, data, f, cam, fwd, UP)
    assert n >= 60


@pytest.mark.parametrize("name", ["sphere", "capsule", "ellipsoid", "tilted_cylinder", "tet"])
def test_small_images_match_mj_ray(scene, name):
    model, data = scene
    cam = camera_for(model, data, name) + np.array([1.5, 0.1, 0.3])
    fwd = np.array([1.0, -0.03, -0.1])
    with Renderer(model, 128, 128) as r:
        f = r.render(data, cam, fwd, UP, colours(model), all_visible(model))
        assert check_against_mj_ray(r, model, data, f, cam, fwd, UP, step=5) >= 150


def test_oblique_camera_matches_mj_ray(scene, rend):
    model, data = scene
    cam = np.array([-4.0, -3.0, 2.5])
    fwd = np.array([1.0, 3.0, -0.6])
    up = np.array([0.2, 0.0, 1.0])  # not orthogonal to fwd: the renderer orthonormalises
    f = rend.render(data, cam, fwd, up, colours(model), all_visible(model))
    assert check_against_mj_ray(rend, model, data, f, cam, fwd, up, step=23) >= 200


def test_rows_top_down_and_background(scene, rend):
    model, data = scene
    cam = camera_for(model, data, "box")
    f = rend.render(data, cam, FWD, UP, colours(model), all_visible(model))
    floor = gid(model, "floor")
    assert (f.geom_ids[-1] == floor).all()  # row 0 is the top: floor at the bottom
    assert (f.geom_ids[0] == -1).all()  # sky at the top
    # (c) background: -1, far plane, black
    sky = f.geom_ids == -1
    assert sky.sum() > 1000
    assert (f.depth[sky] == FAR).all()
    assert (f.rgb[sky] == 0).all()
    assert f.depth.dtype == np.float32 and f.geom_ids.dtype == np.int32 and f.rgb.dtype == np.uint8


def test_looking_at_the_sky_is_all_background(scene, rend):
    model, data = scene
    f = rend.render(data, [0, 0, 5], [0, 0, 1], [1, 0, 0], colours(model), all_visible(model))
    assert (f.geom_ids == -1).all() and (f.depth == FAR).all() and (f.rgb == 0).all()


# (d)
def test_invisible_geom_is_not_drawn(scene, rend):
    model, data = scene
    cam = camera_for(model, data, "box")
    vis = all_visible(model)
    vis[gid(model, "box")] = False
    f = rend.render(data, cam, FWD, UP, colours(model), vis)
    assert (f.geom_ids != gid(model, "box")).all()
    assert f.geom_ids[H // 2, W // 2] == -1 and f.depth[H // 2, W // 2] == FAR
    vis[:] = False
    f = rend.render(data, cam, FWD, UP, colours(model), vis)
    assert (f.geom_ids == -1).all()


# (e)
def test_colours(scene, rend):
    model, data = scene
    f = rend.render(data, camera_for(model, data, "box"), FWD, UP, colours(model), all_visible(model))
    r, g, b = (int(v) for v in f.rgb[H // 2, W // 2])
    assert r > g + 40 and r > b + 40
    f = rend.render(data, camera_for(model, data, "sphere"), FWD, UP, colours(model), all_visible(model))
    r, g, b = (int(v) for v in f.rgb[H // 2, W // 2])
    assert g > r + 40 and g > b + 40


# (f)
@pytest.mark.parametrize("size", [(600, 400), (128, 128), (64, 64)])
def test_resolutions(scene, size):
    model, data = scene
    w, h = size
    with Renderer(model, w, h) as r:
        f = r.render(data, camera_for(model, data, "box"), FWD, UP, colours(model), all_visible(model))
    assert f.rgb.shape == (h, w, 3) and f.depth.shape == (h, w) and f.geom_ids.shape == (h, w)
    assert f.geom_ids[h // 2, w // 2] == gid(model, "box")
    assert abs(f.depth[h // 2, w // 2] - 2.5) < 1e-4
    assert f.rgb.flags.c_contiguous and f.depth.flags.c_contiguous and f.geom_ids.flags.c_contiguous


# (g)
def test_determinism_across_calls_and_instances(scene, rend):
    model, data = scene
    cam, fwd = np.array([-4.0, -3.0, 2.5]), np.array([1.0, 3.0, -0.6])
    args = (data, cam, fwd, UP, colours(model), all_visible(model))
    a = rend.render(*args)
    rend.render(data, [0, 0, 5], [0, 0, 1], [1, 0, 0], colours(model), all_visible(model))
    b = rend.render(*args)
    with Renderer(model, W, H) as other:
        c = other.render(*args)
    for x in (b, c):
        assert np.array_equal(a.rgb, x.rgb)
        assert np.array_equal(a.depth, x.depth)
        assert np.array_equal(a.geom_ids, x.geom_ids)
    assert a.rgb is not b.rgb and a.depth is not b.depth  # frames are not overwritten later


# (h)
def test_mesh_geom(scene, rend):
    model, data = scene
    tet = gid(model, "tet")
    cam = data.geom_xpos[tet] - 3.0 * FWD
    f = rend.render(data, cam, FWD, UP, colours(model), all_visible(model))
    assert np.allclose(data.geom_xpos[tet], [TET / 4, 20 + TET / 4, 0.5 + TET / 4], atol=1e-6)
    mask = f.geom_ids == tet
    assert mask.sum() > 2000
    # the face x = 0 faces the camera: the whole of it is at depth 3 - TET / 4
    face = mask & (np.abs(f.depth - (3.0 - TET / 4)) < 1e-4)
    assert face.sum() > 0.9 * mask.sum()
    assert np.ptp(f.rgb[face], axis=0).max() <= 1  # flat shading: one colour per face


def test_plane_and_want_flags():
    model = mujoco.MjModel.from_xml_string(
        """<mujoco><worldbody>
        <geom name="ground" type="plane" size="0 0 1"/>
        <geom name="tile" type="plane" size="1 1 1" pos="0 0 0.5" euler="0 0 30"/>
        <geom name="ghost" type="box" size="0.5 0.5 0.5" pos="3 0 0.5" rgba="1 1 1 0"/>
        <geom name="helper" type="sphere" size="0.5" pos="3 0 0.5" group="5"/>
        </worldbody></mujoco>"""
    )
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    cam, fwd = np.array([-2.0, 0.5, 2.0]), np.array([1.0, -0.2, -0.7])
    with Renderer(model, 128, 128) as r:
        f = r.render(data, cam, fwd, UP, np.full((model.ngeom, 3), 0.7), all_visible(model))
        compared = check_against_mj_ray(r, model, data, f, cam, fwd, UP, step=9)
        assert compared > 100
        assert (f.geom_ids == gid(model, "tile")).sum() > 100
        # alpha-0 and group-5 geoms are never drawn
        assert not np.isin(f.geom_ids, [gid(model, "ghost"), gid(model, "helper")]).any()
        only_depth = r.render(
            data, cam, fwd, UP, np.full((model.ngeom, 3), 0.7), all_visible(model),
            want_rgb=False, want_ids=False,
        )
    assert isinstance(only_depth, Frame)
    assert only_depth.rgb is None and only_depth.geom_ids is None
    assert np.array_equal(only_depth.depth, f.depth)


def test_pixel_ray_matches_projection(rend):
    fx, fy, cx, cy = projection_params(W, H, 42.5)
    assert fx == fy == pytest.approx(200.0 / math.tan(math.radians(21.25)))
    assert (cx, cy) == (300.0, 200.0)
    cam, fwd, up = np.zeros(3), np.array([0.0, 1.0, 0.0]), UP
    assert np.allclose(rend.pixel_ray(cx, cy, cam, fwd, up), fwd)
    top = rend.pixel_ray(cx, 0.0, cam, fwd, up)
    assert math.degrees(math.acos(top @ fwd)) == pytest.approx(21.25)
    assert top[2] > 0  # py down: row 0 looks up
    right = rend.pixel_ray(W, cy, cam, fwd, up)
    assert right[0] > 0  # looking +y with z up, +x is to the right
    assert np.linalg.norm(rend.pixel_ray(17.5, 300.5, cam, fwd, up)) == pytest.approx(1.0)


def test_bad_inputs(scene, rend):
    model, data = scene
    with pytest.raises(ValueError):
        rend.render(data, [0, 0, 1], FWD, UP, np.zeros((2, 3)), all_visible(model))
    with pytest.raises(ValueError):
        rend.render(data, [0, 0, 1], [0, 0, 1], UP, colours(model), all_visible(model))


def test_create_and_close_many(scene):
    model, data = scene
    for _ in range(4):
        r = Renderer(model, 64, 64)
        f = r.render(data, camera_for(model, data, "box"), FWD, UP, colours(model), all_visible(model))
        assert f.geom_ids[32, 32] == gid(model, "box")
        r.close()
        r.close()  # idempotent
        with pytest.raises(RuntimeError):
            r.render(data, [0, 0, 1], FWD, UP, colours(model), all_visible(model))


def test_missing_egl_raises_render_error(scene, monkeypatch):
    import moderngl

    def fail(**kwargs):
        raise RuntimeError("libEGL.so: cannot open shared object file")

    monkeypatch.setattr(renderer_mod, "_local", threading.local())
    monkeypatch.setattr(moderngl, "create_standalone_context", fail)
    with pytest.raises(RenderError, match="libegl1 libegl-mesa0 libgl1-mesa-dri"):
        Renderer(scene[0], 64, 64)


def test_threads_get_their_own_context(scene, rend):
    model, data = scene
    args = (data, camera_for(model, data, "box"), FWD, UP, colours(model), all_visible(model))
    expected = rend.render(*args)
    out = {}

    def worker():
        try:
            rend.render(*args)  # made in the main thread: refused, not a crash
        except RenderError as exc:
            out["refused"] = str(exc)
        with Renderer(model, W, H) as own:
            out["frame"] = own.render(*args)

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert "thread" in out["refused"]
    assert np.array_equal(out["frame"].geom_ids, expected.geom_ids)
    assert np.array_equal(out["frame"].rgb, expected.rgb)
