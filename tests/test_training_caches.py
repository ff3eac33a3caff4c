"""What training samplers reuse between episodes gives the answers a fresh computation gives."""

from __future__ import annotations

import json
import math

import numpy as np

from mcs_plugin.experts.goals import NearGoal
from mcs_plugin.experts.graph import NavigationGraph
from mcs_plugin.samplers import MCSSceneTaskSampler
from mcs_plugin.sensors import TargetPointSensor
from mcs_plugin.sim.controller import EmbeddedController
from mcs_plugin.tasks.measures import PathDistance
from tests.sim_scenes import ball, scene, wall

GOAL = {"category": "retrieval", "metadata": {"target": {"id": "ball"}}, "last_step": 500}


def make_sampler(tmp_path, mode: str) -> MCSSceneTaskSampler:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "s.json").write_text(json.dumps(scene(wall(z=1.0, width=3.0), ball(z=2.6), goal=GOAL)))
    return MCSSceneTaskSampler(str(tmp_path), [TargetPointSensor()], max_steps=20, mode=mode, seed=0,
                               env_factory=lambda: EmbeddedController({"metadata": "oracle", "width": 64, "height": 64}))


def relaxed_field(graph: NavigationGraph, region: np.ndarray) -> np.ndarray:
    """Geodesic moves to `region` over the passable cells by relaxing all 8 neighbours until nothing changes."""
    passable = graph._relaxed
    dist = np.where(region & passable, 0.0, np.inf)
    costs = {(dr, dc): math.hypot(dr, dc) * graph.grid / 0.1 for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc}
    rows, cols = dist.shape
    changed = True
    while changed:
        changed = False
        for r in range(rows):
            for c in range(cols):
                if not passable[r, c]:
                    continue
                for (dr, dc), cost in costs.items():
                    rr, cc = r + dr, c + dc
                    if 0 <= rr < rows and 0 <= cc < cols and dist[rr, cc] + cost < dist[r, c]:
                        dist[r, c] = dist[rr, cc] + cost
                        changed = True
    return dist


def test_distance_field_is_the_geodesic_distance_around_obstacles(tmp_path):
    source = make_sampler(tmp_path, "test")
    output = source.next_task().env.last_output
    target = next(o for o in output.object_list if o.uuid == "ball")
    graph = NavigationGraph.from_metadata(output, ignore=["ball"], grid=0.2)
    gx, gz = np.meshgrid(graph.xs, graph.zs)
    region = np.asarray(NearGoal.of_object(target, 1.0).region(gx, gz), bool) & graph._relaxed
    field = graph.distance_field(region)
    expected = relaxed_field(graph, region)
    assert np.array_equal(np.isfinite(field), np.isfinite(expected))
    assert np.allclose(field[np.isfinite(field)], expected[np.isfinite(expected)])
    start = graph.heuristic(field, output.position["x"], output.position["z"])
    assert start * 0.1 > 2.6 - 1.0 - 0.15  # the way round the wall is longer than the straight line to reach
    source.close()


def test_training_samplers_read_each_scene_file_once(tmp_path):
    training, evaluation = make_sampler(tmp_path / "a", "train"), make_sampler(tmp_path / "b", "test")
    for source in (training, evaluation):
        source.next_task()
        source.scenes[0].write_text("not json any more")
    assert training.next_task() is not None  # the parsed scene was kept
    evaluation.reset()
    assert evaluation.next_task() is None and "invalid JSON" in evaluation.skipped[-1][1]  # read again
    training.close()
    evaluation.close()


def test_episodes_that_start_alike_share_the_path_distance_field(tmp_path):
    source = make_sampler(tmp_path, "train")
    first = source.next_task()
    start_distance = first.distance_to_target(first.env.last_output)
    first.step(first.vocabulary.index("MoveAhead"))
    second = source.next_task()  # the same scene again: the same start
    assert second.distance_to_target(second.env.last_output) == start_distance
    assert second._path_distance._fields["ball"] is first._path_distance._fields["ball"]
    fresh = PathDistance()(second.env.last_output, "ball")  # a new measure finds the shared entry too
    assert fresh == start_distance
    source.close()
