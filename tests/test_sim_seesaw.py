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
