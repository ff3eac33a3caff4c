"""Every public MCS sample scene loads and survives random actions; metadata tiers; determinism."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from mcs_plugin.sim.controller import EmbeddedController
from mcs_plugin.sim.world import HOLE_DEPTH
from tests.sim_scenes import SAMPLE_SCENES, ball, chest, scene

TARGETED = {"PickupObject", "PushObject", "PullObject", "OpenObject", "CloseObject", "TorqueObject",
            "RotateObject", "MoveObject", "InteractWithAgent"}


def random_episode(controller: EmbeddedController, path, steps: int, seed: int = 0, check=None) -> list:
    """Run up to `steps` random allowed actions; returns the outputs (stops at last_step or EndScene). `check`
    (if given) is called with the controller and each output as it comes."""
    rng = random.Random(seed)
    outputs = [controller.start_scene(path)]
    if check is not None:
        check(controller, outputs[-1])
    for _ in range(steps):
        allowed = outputs[-1].action_list
        if not allowed:
            break
        name, params = rng.choice(allowed)
        params = dict(params)
        if name == "EndScene":
            break
        if name in TARGETED and not params:
            params = {"objectImageCoordsX": rng.randrange(controller.width), "objectImageCoordsY": rng.randrange(controller.height)}
        if name == "PutObject" and not params:
            params = {"receptacleObjectImageCoordsX": rng.randrange(controller.width),
                      "receptacleObjectImageCoordsY": rng.randrange(controller.height)}
        output = controller.step(name, **params)
        if output is None:
            break
        outputs.append(output)
        if check is not None:
            check(controller, output)
    return outputs


def _floor_below(controller: EmbeddedController) -> float:
    """Lowest surface an object may rest on: the floor, or the bottom of a hole."""
    return -HOLE_DEPTH if controller.scene.holes else 0.0


@pytest.mark.parametrize("path", SAMPLE_SCENES, ids=lambda p: p.stem)
def test_sample_scene_survives_500_random_actions(path):
    """No exception, nothing non-finite, nothing sinks through the floor (or out of the room) in 500 random actions."""
    controller = EmbeddedController({"metadata": "oracle", "render": False, "steps_allowed_in_lava": 1000})

    def check(ctrl: EmbeddedController, output) -> None:
        floor = -HOLE_DEPTH if ctrl.scene.holes else 0.0
        half_x, half_z = ctrl.scene.room_dimensions.x / 2 + 0.5, ctrl.scene.room_dimensions.z / 2 + 0.5
        for meta in output.object_list + output.structural_object_list:
            values = [*meta.position.values(), *meta.rotation.values(), meta.distance_in_world]
            assert all(math.isfinite(v) for v in values), (output.step_number, meta.uuid)
        assert math.isfinite(output.reward)
        assert output.position is None or all(math.isfinite(v) for v in output.position.values())
        world = ctrl.world
        for obj in world.objects:
            if not obj.present or obj.held or obj.structural or not obj.dynamic or obj.frozen:
                continue  # held, part of the room, or placed by the scene (static objects stand where they are put)
            # Contacts are slightly soft: a fast impact (a fall from the ceiling) dents the floor a few cm for a
            # step; anything slower rests on the surface.
            speed = float(np.linalg.norm(obj.qvel[:3]))
            dent = 0.06 if speed > 0.05 or obj.calm_actions < 2 else 0.01
            assert world.lowest_point(obj) > floor - dent, (path.stem, output.step_number, obj.id)
            x, z = world.body_pos(obj)[:2]
            assert abs(x) < half_x and abs(z) < half_z, (path.stem, output.step_number, obj.id)

    outputs = random_episode(controller, path, 500, check=check)
    assert outputs[0].step_number == 0


@pytest.mark.parametrize("path", SAMPLE_SCENES[::8], ids=lambda p: p.stem)
def test_sample_scene_renders_at_training_size(path):
    controller = EmbeddedController({"metadata": "oracle", "width": 64, "height": 64})
    outputs = random_episode(controller, path, 20)
    for output in outputs:
        assert output.image_list[-1].size == (64, 64)
        depth = output.depth_map_list[-1]
        assert depth.shape == (64, 64) and np.isfinite(depth).all()
    controller.stop_simulation()


def _arrays(output):
    return (np.asarray(output.image_list[0]), output.depth_map_list[0], np.asarray(output.object_mask_list[0]))


def test_same_scene_and_actions_give_identical_observations():
    scn = scene(ball(z=1.5), chest(x=1.0, z=2.0), ball("b", x=-1, z=2.5, diameter=0.3))
    runs = []
    for _ in range(2):
        controller = EmbeddedController({"metadata": "oracle", "width": 160, "height": 120})
        outputs = [controller.start_scene(scn)]
        for action in ["MoveAhead", "RotateRight", "LookDown", "PushObject,objectId=ball,force=0.8", "Pass", "Pass"]:
            outputs.append(controller.step(action))
        runs.append(outputs)
        controller.stop_simulation()
    for a, b in zip(*runs):
        for x, y in zip(_arrays(a), _arrays(b)):
            np.testing.assert_array_equal(x, y)
        assert a.to_dict() == b.to_dict()


@pytest.mark.parametrize("tier", ["oracle", "default", "level2", "level1", "none"])
def test_metadata_tiers(tier):
    config = {"width": 90, "height": 60} if tier == "default" else {"metadata": tier, "width": 90, "height": 60}
    controller = EmbeddedController(config)
    out = controller.start_scene(scene(ball(z=1.5), ball("behind", z=-2),
                                       goal={"category": "retrieval", "metadata": {"target": {"id": "ball"}}}))
    assert len(out.image_list) == 1
    assert len(out.depth_map_list) == (0 if tier == "none" else 1)
    assert len(out.object_mask_list) == (1 if tier in ("oracle", "default", "level2") else 0)
    if tier == "oracle":
        assert {o.uuid for o in out.object_list} == {"ball", "behind"}
        assert out.position is not None and out.rotation == 0.0 and out.room_dimensions is not None
        assert len(out.structural_object_list) == 5  # 4 walls + ceiling; the floor is not listed
        assert out.goal.metadata["target"]["id"] == "ball"
        assert {c["objectId"] for c in out.segmentation_colors} >= {"ball", "behind", "floor"}
    elif tier == "default":
        assert {o.uuid for o in out.object_list} == {"ball"}  # only what is visible (or held)
    else:
        assert out.object_list == [] and out.structural_object_list == []
        assert out.position is None and out.rotation is None and out.room_dimensions is None
        assert "id" not in out.goal.metadata["target"]
    controller.stop_simulation()


def test_mask_colours_stable_at_oracle_and_shuffled_at_level2():
    scn = scene(ball(z=1.5), ball("b", x=0.6, z=1.8))
    oracle = EmbeddedController({"metadata": "oracle", "width": 90, "height": 60})
    first = oracle.start_scene(scn)
    second = oracle.step("Pass")
    ball_color = next(o.color for o in first.object_list if o.uuid == "ball")
    assert ball_color == next(o.color for o in second.object_list if o.uuid == "ball")
    colors_of = lambda out: {tuple(c) for c in np.asarray(out.object_mask_list[0]).reshape(-1, 3)}
    assert colors_of(first) == colors_of(second)
    assert (ball_color["r"], ball_color["g"], ball_color["b"]) in colors_of(first)
    level2 = EmbeddedController({"metadata": "level2", "width": 90, "height": 60})
    masks = [np.asarray(level2.start_scene(scn).object_mask_list[0])]
    masks += [np.asarray(level2.step("Pass").object_mask_list[0]) for _ in range(4)]
    assert any(not np.array_equal(masks[0], m) for m in masks[1:])
    # The partition into segments is the same even though colours change.
    labels = [np.unique(m.reshape(-1, 3), axis=0, return_inverse=True)[1].reshape(m.shape[:2]) for m in masks]
    assert all(len(np.unique(lab)) == len(np.unique(labels[0])) for lab in labels)


def test_depth_and_mask_agree_with_ray_casts():
    controller = EmbeddedController({"metadata": "oracle", "width": 120, "height": 80})
    out = controller.start_scene(scene(ball(z=1.5), chest(x=0.8, z=2.0), tilt=20))
    depth = out.depth_map_list[0]
    mask = np.asarray(out.object_mask_list[0])
    colors = {o.uuid: (o.color["r"], o.color["g"], o.color["b"]) for o in out.object_list}
    colors.update({c["objectId"]: (c["r"], c["g"], c["b"]) for c in out.segmentation_colors})
    world, performer = controller.world, controller.performer
    forward, up = performer.camera_axes()
    from mcs_plugin.sim.camera import pixel_ray

    checked = 0
    for py in range(5, 80, 15):
        for px in range(5, 120, 23):
            direction = pixel_ray(px + 0.5, py + 0.5, 120, 80, 42.5, forward, up)
            geom, dist = world.ray(performer.camera_mj(), direction)
            if geom < 0:
                continue
            owner = world.owner(geom)
            assert depth[py, px] == pytest.approx(dist * float(direction @ forward), abs=0.02)
            assert tuple(mask[py, px]) == colors[owner.id]
            checked += 1
    assert checked > 20
    controller.stop_simulation()


def test_metadata_only_mode_has_no_images():
    controller = EmbeddedController({"metadata": "oracle", "render": False})
    out = controller.start_scene(scene(ball()))
    assert out.image_list == [] and out.depth_map_list == [] and out.object_mask_list == []
    assert out.object_list[0].uuid == "ball"
