"""What training samplers reuse between episodes gives the answers a fresh computation gives."""

from __future__ import annotations

import json
import math

import numpy as np

from mcs_plugin.experts.goals import NearGoal
from mcs_plugin.experts.graph import NavigationGraph
from mcs_plugin.experts.poses import pose_of
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


def test_training_samplers_validate_each_scene_once_and_start_it_as_a_fresh_read_does(tmp_path, monkeypatch):
    import mcs_plugin.samplers.sampler as sampler_module
    import mcs_plugin.sim.controller as controller_module

    (tmp_path / "s.json").write_text(json.dumps(scene(wall(z=1.0, width=3.0), ball(z=2.6), goal=GOAL)))
    env_args = {"config": {"metadata": "oracle", "width": 64, "height": 64}}
    calls = {"sampler": 0, "simulator": 0}

    def counted(where, parse):
        def parse_counted(*args, **kwargs):
            calls[where] += 1
            return parse(*args, **kwargs)
        return parse_counted

    monkeypatch.setattr(sampler_module, "parse_scene", counted("sampler", sampler_module.parse_scene))
    monkeypatch.setattr(controller_module, "parse_scene", counted("simulator", controller_module.parse_scene))
    training = MCSSceneTaskSampler(str(tmp_path), [TargetPointSensor()], max_steps=20, mode="train", seed=0,
                                   env_args=env_args)
    starts = [training.next_task().env.last_output for _ in range(3)]
    assert calls == {"sampler": 1, "simulator": 0}  # validated once, then handed to the simulator parsed
    evaluation = MCSSceneTaskSampler(str(tmp_path), [TargetPointSensor()], max_steps=20, mode="test", seed=0,
                                     env_args=env_args)
    fresh = evaluation.next_task().env.last_output
    assert calls["simulator"] == 1  # evaluation reads and validates the file as MCS would
    for output in starts:
        assert np.array_equal(np.asarray(output.image_list[0]), np.asarray(fresh.image_list[0]))
        assert [(o.uuid, o.position, o.visible) for o in output.object_list] == \
            [(o.uuid, o.position, o.visible) for o in fresh.object_list]
    training.close()
    evaluation.close()


def test_the_expert_keeps_an_aim_goal_while_nothing_moves_and_makes_a_new_one_when_something_does(tmp_path):
    import copy

    from mcs_plugin.experts import make_expert
    from mcs_plugin.experts.boxes import Box
    from mcs_plugin.experts.goals import AimGoal
    from mcs_plugin.experts.poses import pose_of

    sim = EmbeddedController({"metadata": "oracle", "width": 64, "height": 64})
    sim.start_scene(scene(ball(z=1.4), goal=GOAL))
    first = sim.step("Pass")  # the ball settles on the floor in the first action
    expert = make_expert("retrieval")
    box = Box.from_metadata(next(o for o in first.object_list if o.uuid == "ball"))
    goal = expert.aim_goal(first, box, ("pickup", "ball"), exclude={"ball"})
    turned = sim.step("RotateRight")  # the performer turns; no object moves
    assert expert.aim_goal(turned, box, ("pickup", "ball"), exclude={"ball"}) is goal
    moved = copy.deepcopy(turned)
    ball_now = next(o for o in moved.object_list if o.uuid == "ball")
    ball_now.position = {**ball_now.position, "x": ball_now.position["x"] + 0.3}
    assert expert.aim_goal(moved, box, ("pickup", "ball"), exclude={"ball"}) is not goal
    # what a kept goal remembers per pose is what a goal made afresh finds
    fresh = AimGoal(box, goal.occluders, reach=goal.reach, tilts=goal.tilts, image_size=goal.image_size,
                    camera_height=goal.camera_height)
    sim.step("RotateLeft")
    outputs = [first, turned] + [sim.step("MoveAhead") for _ in range(4)]
    for output in outputs:
        pose = pose_of(output)
        assert goal.aims(pose) == fresh.aims(pose) == goal.aims(pose)
    assert not goal.aims(pose_of(first)) and goal.aims(pose_of(outputs[-1]))  # out of reach, then in reach
    sim.stop_simulation()


def test_the_expert_makes_its_graph_anew_once_a_rolling_obstacle_stops_not_at_every_step_of_its_roll():
    from mcs_plugin.experts import make_expert

    rolled = ball("rolled", x=-2.0, z=3.5, diameter=0.4,
                  forces=[{"stepBegin": 1, "stepEnd": 1, "impulse": True, "vector": {"x": 0.3, "y": 0, "z": 0}}])
    sim = EmbeddedController({"metadata": "oracle", "width": 64, "height": 64})
    sim.start_scene(scene(rolled, ball(z=1.5), goal=GOAL))
    expert = make_expert("retrieval")
    outputs = [sim.step("Pass") for _ in range(200)]
    xs = [next(o for o in out.object_list if o.uuid == "rolled").position["x"] for out in outputs]
    assert xs[20] - xs[0] > 0.1 and abs(xs[-1] - xs[-2]) < 1e-3  # it rolled, then came to rest
    graphs = [expert.graph_for(out) for out in outputs]
    rolling = [i for i in range(1, 200) if abs(xs[i] - xs[i - 1]) > 0.002]
    assert len({id(graphs[i]) for i in rolling}) == 1  # kept through the roll
    assert graphs[-1] is not graphs[rolling[0]]  # made anew where the ball stopped
    sim.stop_simulation()


def test_graph_from_culled_clearances_is_the_graph_from_exact_ones(tmp_path, monkeypatch):
    """The graph measures its cells' clearance only near each obstacle; what it derives is what exact ones give."""
    from mcs_plugin.geometry import Obstacles

    output = make_sampler(tmp_path, "test").next_task().env.last_output
    culled = NavigationGraph.from_metadata(output, grid=0.1)
    exact_distances = Obstacles.distances
    monkeypatch.setattr(Obstacles, "distances", lambda self, points, within=math.inf: exact_distances(self, points))
    exact = NavigationGraph.from_metadata(output, grid=0.1)
    assert np.isinf(culled._level_clearance).any() and not np.isinf(exact._level_clearance).any()
    for name in ("free", "_relaxed", "_near_polygons"):
        assert np.array_equal(getattr(culled, name), getattr(exact, name)), name
    target = next(o for o in output.object_list if o.uuid == "ball")
    plans = [graph.plan(pose_of(output), NearGoal.of_object(target, 1.0)) for graph in (culled, exact)]
    assert plans[0] and [a for a, _ in plans[0]] == [a for a, _ in plans[1]]
