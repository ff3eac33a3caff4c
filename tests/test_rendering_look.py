"""Surface patterns, lighting and randomised looks: what they change (RGB) and what they must not (depth, ids,
masks, reported colours), and that the same seed gives the same frames."""

from __future__ import annotations

import random
from dataclasses import replace

import mujoco
import numpy as np
import pytest

from mcs_plugin.sim.controller import EmbeddedController
from mcs_plugin.sim.look import DEFAULT_LOOK, random_look
from mcs_plugin.sim.render_meshes import asset_mesh
from mcs_plugin.sim.renderer import Renderer
from mcs_plugin.sim.surfaces import SURFACE_CODES, surface_of
from tests.sim_scenes import ball, scene

UP = np.array([0.0, 0.0, 1.0])
FWD = np.array([1.0, 0.0, 0.0])
BOARD = """
<mujoco><worldbody>
  <geom name="board" type="box" size="0.05 1.0 0.5" pos="2 0 0.5"/>
  <geom name="back" type="box" size="0.05 5 5" pos="6 0 0"/>
  <geom name="ball" type="sphere" size="0.2" pos="1.5 -0.45 0.5"/>
</worldbody></mujoco>
"""


@pytest.fixture(scope="module")
def board():
    model = mujoco.MjModel.from_xml_string(BOARD)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return model, data


def draw(model, data, surfaces=None, look=DEFAULT_LOOK, size=(160, 120)):
    """One frame of the board scene from 2 m in front of the board."""
    rgb = np.full((model.ngeom, 3), 0.6)
    with Renderer(model, *size, geom_surface=surfaces, look=look) as r:
        return r.render(data, np.array([0.0, 0.0, 0.5]), FWD, UP, rgb, np.ones(model.ngeom, bool))


def test_surface_classes_of_materials():
    assert surface_of(["AI2-THOR/Materials/Wood/WornWood"]) == "wood"
    assert surface_of(["Custom/Materials/YellowCarpetMCS"]) == "carpet"
    assert surface_of(["AI2-THOR/Materials/Walls/DrywallBeige"]) == "drywall"
    assert surface_of(["AI2-THOR/Materials/Metals/BrushedAluminum_Blue"]) == "metal"
    assert surface_of(["AI2-THOR/Materials/Ceramics/GREYGRANITE"]) == "ceramic"
    assert surface_of(["AI2-THOR/Materials/Plastics/BlueRubber"]) == "rubber"
    assert surface_of([], ["METAL"]) == "metal" and surface_of(["Unknown/Thing"], ["UNDEFINED"]) == "plain"


def test_pattern_varies_rgb_keeps_mean_depth_and_ids(board):
    """A wooden board shows grain whose mean stays the plain colour; depth and ids do not change."""
    model, data = board
    plain = draw(model, data)
    codes = np.zeros(model.ngeom, np.float32)
    codes[0] = SURFACE_CODES["wood"]
    wood = draw(model, data, codes)
    face = plain.geom_ids == 0
    assert face.sum() > 2000
    assert np.ptp(plain.rgb[face], axis=0).max() <= 1  # plain: one flat face, one colour
    assert np.ptp(wood.rgb[face][:, 0]) > 10  # grain
    assert np.abs(wood.rgb[face].mean(axis=0) - plain.rgb[face].mean(axis=0)).max() < 0.04 * 255
    assert np.array_equal(plain.depth, wood.depth) and np.array_equal(plain.geom_ids, wood.geom_ids)
    assert np.array_equal(plain.rgb[~face], wood.rgb[~face])  # other geoms untouched


def test_metal_highlight_and_bad_codes(board):
    model, data = board
    codes = np.zeros(model.ngeom, np.float32)
    codes[2] = SURFACE_CODES["metal"]
    behind_camera = replace(DEFAULT_LOOK, key=(-1.0, 0.0, 0.0))  # the ball's highlight faces the camera
    metal, plain = draw(model, data, codes, behind_camera), draw(model, data, look=behind_camera)
    ball = plain.geom_ids == 2
    assert ball.sum() > 300
    assert int(metal.rgb[ball].max()) > int(plain.rgb[ball].max()) + 30  # the key light's highlight
    with pytest.raises(ValueError, match="geom_surface"):
        Renderer(model, 32, 32, geom_surface=np.full(model.ngeom, 99))


def test_look_changes_rgb_only(board):
    model, data = board
    a = draw(model, data, look=DEFAULT_LOOK)
    b = draw(model, data, look=random_look(random.Random(3)))
    assert not np.array_equal(a.rgb, b.rgb)
    assert np.array_equal(a.depth, b.depth) and np.array_equal(a.geom_ids, b.geom_ids)
    assert random_look(random.Random(3)) == random_look(random.Random(3))


def test_mesh_normals_smooth_across_shallow_edges_only():
    """A 24-sided prism: side corners get the radial (smoothed) normal, cap corners keep the flat cap's."""
    angles = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    ring = [f"{np.cos(a):.6f} {np.sin(a):.6f} {z}" for z in (-0.5, 0.5) for a in angles]
    model = mujoco.MjModel.from_xml_string(
        f'<mujoco><asset><mesh name="p" vertex="{" ".join(ring)}"/></asset>'
        '<worldbody><geom type="mesh" mesh="p"/></worldbody></mujoco>')
    verts, _ = asset_mesh(model, 0)
    pos, normal = verts[:, 0:3].astype(float), verts[:, 3:6].astype(float)
    # MuJoCo turns meshes to their principal axes: the prism's axis is the normal with the most corners.
    axes, counts = np.unique(np.round(np.abs(normal), 3), axis=0, return_counts=True)
    axis = axes[np.argmax(counts)] / np.linalg.norm(axes[np.argmax(counts)])
    cap = np.abs(normal @ axis) > 0.999
    assert 0 < cap.sum() < len(normal)  # the caps stay flat (90 degree rim)
    radial = pos[~cap] - np.outer(pos[~cap] @ axis, axis)
    radial /= np.linalg.norm(radial, axis=1, keepdims=True)
    assert np.allclose(normal[~cap], radial, atol=1e-3)  # smooth sides: the true cylinder normal at each corner


ROOM = scene(ball("ball", 0.0, 1.5), ball("ball2", 0.8, 2.0), name="look",
             wallMaterial="AI2-THOR/Materials/Wood/WornWood")


def frames(config: dict, starts: int = 1):
    """Outputs of each of `starts` scene starts (one MoveAhead each) of one controller."""
    sim = EmbeddedController({"metadata": "oracle", "width": 64, "height": 48, **config})
    outs = []
    for _ in range(starts):
        sim.start_scene(ROOM)
        outs.append(sim.step("MoveAhead"))
    sim.stop_simulation()
    return outs


def arrays(out):
    return (np.asarray(out.image_list[0]), out.depth_map_list[0], np.asarray(out.object_mask_list[0]))


def test_randomised_looks_are_seeded_and_touch_rgb_only():
    """Same seed: same frames. Another seed, or the next scene start: other RGB, same depth, masks, metadata."""
    plain = frames({}, starts=2)
    first, again = frames({"randomize_rendering": True, "seed": 5}, starts=2)
    (same,) = frames({"randomize_rendering": True, "seed": 5})
    (other,) = frames({"randomize_rendering": True, "seed": 6})
    assert all(np.array_equal(a, b) for a, b in zip(arrays(first), arrays(same)))  # deterministic
    assert all(np.array_equal(a, b) for a, b in zip(arrays(plain[0]), arrays(plain[1])))  # off: one look
    for out in (again, other, plain[0]):
        rgb, depth, mask = arrays(out)
        assert not np.array_equal(rgb, arrays(first)[0])
        assert np.array_equal(depth, arrays(first)[1]) and np.array_equal(mask, arrays(first)[2])
        colours = [(o.uuid, o.texture_color_list, o.color) for o in out.object_list]
        assert colours == [(o.uuid, o.texture_color_list, o.color) for o in first.object_list]


def test_masks_are_flat_object_colours():
    """Mask pixels are exactly the segmentation colours (no pattern or light reaches them)."""
    (out,) = frames({"randomize_rendering": True, "seed": 1})
    mask = np.asarray(out.object_mask_list[0]).reshape(-1, 3)
    known = {(c["r"], c["g"], c["b"]) for c in out.segmentation_colors}  # every object's, floor included
    assert {tuple(int(c) for c in px) for px in np.unique(mask, axis=0)} <= known | {(0, 0, 0)}
