"""Ramps in the expert's navigation graph: slices a step apart that the performer climbs, side faces in the way,
too-steep ramps still blocks; a real Eval-7 ramp leads onto the platform at its top."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mcs_plugin.experts.boxes import Box
from mcs_plugin.experts.goals import NearGoal
from mcs_plugin.experts.graph import NavigationGraph
from mcs_plugin.experts.poses import Pose, pose_of
from mcs_plugin.experts.ramps import RAMP, RAMP_SIDE, SLICE_RISE, ramp_pieces
from mcs_plugin.sim.controller import EmbeddedController
from sim_scenes import DATA

RAMP_SCENE = DATA / "eval7" / "eval_7_interactive_ramps_0001_01.json"


def _box(x: float, z: float, width: float, height: float, length: float) -> Box:
    """An axis-aligned box standing on the floor: `width` along x, `length` along z."""
    return Box(np.array([x, height / 2, z]), np.eye(3), np.array([width / 2, height / 2, length / 2]))


def test_a_ramp_is_sliced_along_its_slope_with_its_sides_in_the_way():
    pieces = ramp_pieces(_box(0.0, 0.0, 1.0, 1.0, 1.2), yaw=90.0)  # climbs toward +x over 1.0 m: 45 degrees
    slices = [p for p in pieces if p.kind == RAMP]
    assert len(slices) == math.ceil(1.0 / SLICE_RISE) and len([p for p in pieces if p.kind == RAMP_SIDE]) == 20
    assert [round(p.top, 3) for p in slices] == [round(0.1 * (k + 1), 3) for k in range(10)]
    lows = [float(p.polygon[:, 0].min()) for p in slices]
    assert lows == sorted(lows) and lows[0] == pytest.approx(-0.5)  # the first slice at the low (-x) end
    assert ramp_pieces(_box(0.0, 0.0, 1.0, 1.0, 1.2), yaw=270.0)[0].polygon[:, 0].max() == pytest.approx(0.5)


def test_a_ramp_steeper_than_the_climbable_limit_stays_a_block():
    assert ramp_pieces(_box(0.0, 0.0, 1.0, 1.8, 1.0), yaw=0.0) is None  # 61 degrees


def test_the_graph_climbs_a_real_ramp_onto_its_platform():
    controller = EmbeddedController({"metadata": "oracle", "render": False, "reward_mode": "seed"})
    output = controller.start_scene(str(RAMP_SCENE))
    graph = NavigationGraph.from_metadata(output, grid=0.1)
    x = -9.11  # the middle of the ramp, which climbs 1.2 m toward +z from z = 3.82 to 5.15
    heights = [float(graph.floor_at(x, z)) for z in np.arange(3.3, 5.6, 0.1)]
    assert heights == sorted(heights) and heights[0] == 0.0 and heights[-1] == pytest.approx(1.2035, abs=1e-3)
    assert max(np.diff(heights)) <= 0.13  # every 0.1 m move climbs a step at most
    pose = Pose(x, 3.3, 0.0)
    for _ in range(25):  # straight up the ramp and onto the platform
        end = graph.move_end(pose.x, pose.z, pose.x, pose.z + 0.1)
        assert end is not None, pose
        pose = Pose(end[0], end[1], 0.0)
    assert float(graph.floor_at(pose.x, pose.z)) == pytest.approx(1.2035, abs=1e-3)
    assert graph.move_end(-7.6, 4.8, -7.7, 4.8) is None  # from the floor into the ramp's high side: a wall
    agent = NearGoal(np.array([-5.1, 7.6]), np.array([-4.7, 8.0]), 0.8)  # the agent on the platform
    path = graph.plan(pose_of(output), agent, weight=1.5)
    assert path is not None and float(graph.floor_at(path[-1][1].x, path[-1][1].z)) > 1.2
