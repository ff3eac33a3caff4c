"""Embedded simulator seesaws (MCS IT 086, 092): a thin plank resting on its pivot that the performer's weight tips."""

from __future__ import annotations

import pytest

from mcs_plugin.sim.world import SEESAW_PLANK_THICKNESS
from tests.sim_scenes import obj, run, scene, seesaw


def test_plank_is_thin_and_rests_on_its_pivot_and_the_floor(sim):
    out = sim.start_scene(scene(*seesaw(), start=(0.0, 3.0), yaw=180))
    plank = sim.world.by_id["seesaw"]
    assert plank.plank and not plank.dynamic
    assert plank.size[2] == pytest.approx(SEESAW_PLANK_THICKNESS)
    run(sim, 5)
    assert obj(sim.last_output, "seesaw").rotation["x"] == pytest.approx(73.0, abs=0.5)
    assert obj(out, "seesaw").position["z"] == pytest.approx(0.3, abs=1e-3)


def test_performer_walks_up_the_plank_and_rises_with_it(sim):
    sim.start_scene(scene(*seesaw(), start=(0.0, 2.0), yaw=180))
    outputs = run(sim, 10, "MoveAhead")
    assert all(o.return_status == "SUCCESSFUL" for o in outputs)
    heights = [o.camera_height for o in outputs[2:]]
    assert all(b - a == pytest.approx(0.0307, abs=0.003) for a, b in zip(heights, heights[1:]))  # tan 17 x 0.1 m


def test_performer_past_the_pivot_tips_the_plank_back(sim):
    sim.start_scene(scene(*seesaw(), start=(0.0, 2.0), yaw=180))
    outputs = run(sim, 30, "MoveAhead")
    angles = [obj(o, "seesaw").rotation["x"] for o in outputs]
    assert angles[19] == pytest.approx(73.0, abs=0.5)  # at the pivot (z 0): the plank's weight holds it down
    assert angles[28] > 80.0  # 0.9 m past it, the -z side has come down
    assert obj(outputs[-1], "seesaw").position["z"] == pytest.approx(0.3, abs=1e-3)


def test_flat_plank_tips_under_a_performer_on_its_end(sim):
    out = sim.start_scene(scene(*seesaw(tilt=0.0, centre_y=0.51), start=(0.0, 1.6), yaw=180,
                                performerStart={"position": {"x": 0, "y": 1.5, "z": 1.6}, "rotation": {"y": 180}}))
    assert out.camera_height == pytest.approx(0.762 + 0.51 + SEESAW_PLANK_THICKNESS / 2, abs=1e-3)
    angles = [obj(o, "seesaw").rotation["x"] for o in [out, *run(sim, 3)]]
    assert angles[0] < 89.5 and all(b < a for a, b in zip(angles, angles[1:]))
    assert angles[-1] == pytest.approx(73.0, abs=1.5)  # its low end has met the floor


def _count_plank_pushes(sim, monkeypatch) -> list:
    """Record each push the world gives a plank (plank id, point, impulse)."""
    pushes = []
    original = type(sim.world).push_plank

    def push_plank(world, plank, point, impulse):
        pushes.append((plank.id, point.copy(), impulse))
        original(world, plank, point, impulse)

    monkeypatch.setattr(type(sim.world), "push_plank", push_plank)
    return pushes


def test_every_height_match_on_a_plank_pushes_it_once_with_the_performers_weight(sim, monkeypatch):
    performer_start = {"position": {"x": 0, "y": 1.5, "z": 1.6}, "rotation": {"y": 180}}
    sim.start_scene(scene(*seesaw(tilt=0.0, centre_y=0.51), start=(0.0, 1.6), yaw=180, performerStart=performer_start))
    pushes = _count_plank_pushes(sim, monkeypatch)
    out = sim.step("Pass")  # one height match: one push
    assert len(pushes) == 1
    plank_id, point, impulse = pushes[0]
    assert plank_id == "seesaw" and impulse == pytest.approx(2.0 * 9.81 * 0.01)
    # where the cast touched the plank (the height the performer was stood at), within the cast's radius of its axis
    assert point[1] == pytest.approx(1.6, abs=0.12) and point[2] == pytest.approx(out.camera_height - 0.762, abs=1e-6)
    sim.step("MoveAhead")  # a height match before the step and one after it
    assert len(pushes) == 3
    assert pushes[2][1][1] == pytest.approx(pushes[1][1][1] - 0.1, abs=0.03)  # the second one at the new place
    sim.step("RotateRight")
    assert len(pushes) == 4


def test_the_start_pushes_a_plank_twice(sim):
    """The scene's own height match and the Initialize action's: a flat plank under a performer on its end has
    tipped ~2.4 degrees by the first output (one push would leave it at ~1.3)."""
    performer_start = {"position": {"x": 0, "y": 1.5, "z": 1.6}, "rotation": {"y": 180}}
    out = sim.start_scene(scene(*seesaw(tilt=0.0, centre_y=0.51), start=(0.0, 1.6), yaw=180,
                                performerStart=performer_start))
    assert 90.0 - obj(out, "seesaw").rotation["x"] == pytest.approx(2.4, abs=0.3)


def test_a_passive_scene_does_not_press_a_plank(sim, monkeypatch):
    performer_start = {"position": {"x": 0, "y": 1.5, "z": 1.6}, "rotation": {"y": 180}}
    sim.start_scene(scene(*seesaw(tilt=0.0, centre_y=0.51), start=(0.0, 1.6), yaw=180, performerStart=performer_start,
                          intuitivePhysics=True))
    pushes = _count_plank_pushes(sim, monkeypatch)
    sim.step("Pass")
    assert pushes == []


def test_stepping_off_a_seesaw_part_pushes_the_body_clear_of_it(sim):
    """After a change of height MCS pushes the body out of seesaw parts as out of structures (the end of a plank
    the performer has just stepped off): here a kinematic seesaw block."""
    block = {"id": "block", "type": "cube", "seesaw": True, "kinematic": True, "moveable": True, "mass": 1,
             "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.5, "z": 0}, "scale": {"x": 2, "y": 1, "z": 2}}]}
    sim.start_scene(scene(block, performerStart={"position": {"x": 0, "y": 1, "z": 0.921},
                                                 "rotation": {"x": 0, "y": 0}}))
    assert sim.step("MoveAhead").camera_height == pytest.approx(1.762, abs=1e-3)  # still on its edge
    fallen = sim.step("MoveAhead")
    assert fallen.camera_height == pytest.approx(0.762, abs=1e-3)
    assert fallen.position["z"] == pytest.approx(1.0 + 0.221, abs=2e-3)
