"""Experts: the navigation graph (free space, lattice, shortest paths) and the per-goal expert policies."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from mcs_plugin.experts import (
    AimGoal, Box, EXPERT_ACTIONS, NavigationGraph, NearGoal, NoExpertError, Pose, PredicateGoal, make_expert,
    pose_of, relationship_holds, run_expert, to_controller_call,
)
from mcs_plugin.experts import cli as expert_cli
from mcs_plugin.experts.graph import graph_distance_to
from mcs_plugin.experts.poses import achievable_tilts, center_ray_directions_many
from mcs_plugin.geometry import convex_hull
from mcs_plugin.sim.controller import EmbeddedController
from sim_scenes import DATA, ball, chest, scene, wall

SOCCER = DATA / "scenes" / "retrieval_goal_example_with_soccer_ball.json"


def start(data: dict):
    controller = EmbeddedController({"metadata": "oracle", "render": False})
    return controller, controller.start_scene(data)


def retrieval(target: str = "target") -> dict:
    return {"category": "retrieval", "metadata": {"target": {"id": target}}}


def table(object_id: str, x: float, z: float, type_name: str = "table_11") -> dict:
    return {"id": object_id, "type": type_name, "shows": [{"stepBegin": 0, "position": {"x": x, "y": 0, "z": z}}]}


def block(object_id: str, x: float, z: float, scale: float = 1.5) -> dict:
    return {"id": object_id, "type": "block_blank_wood_cube", "mass": 0.5, "pickupable": True,
            "shows": [{"stepBegin": 0, "position": {"x": x, "y": 0.05 * scale, "z": z},
                       "scale": {"x": scale, "y": scale, "z": scale}}]}


def transferral(first: str, second: str, relation: str) -> dict:
    return {"category": "transferral", "metadata": {"target_1": {"id": first}, "target_2": {"id": second},
                                                    "relationship": ["target_1", relation, "target_2"]}}


# -- geometry -----------------------------------------------------------------------------------------------------
def test_box_from_corners_recovers_an_oriented_box():
    a = math.radians(30)
    axes = np.array([[math.cos(a), 0, -math.sin(a)], [0, 1, 0], [math.sin(a), 0, math.cos(a)]])
    box = Box(np.array([1.0, 0.5, 2.0]), axes, np.array([0.4, 0.5, 0.2]))
    again = Box.from_corners([{"x": c[0], "y": c[1], "z": c[2]} for c in box.corners[::-1]])
    assert np.allclose(again.center, box.center)
    assert np.allclose(sorted(again.half), sorted(box.half))
    assert len(again.footprint()) == 4
    # a ray at the box enters it on its surface; one that points away misses it
    origin = np.array([1.0, 0.5, 0.0])
    t = again.ray_entry(origin, np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]))
    local = again.axes @ (origin + t[0] * np.array([0.0, 0.0, 1.0]) - again.center)
    assert 0 < t[0] < 2 and np.max(np.abs(local) / again.half) == pytest.approx(1.0)
    assert math.isinf(t[1])
    plain = Box(np.array([0.0, 0.5, 2.0]), np.eye(3), np.array([0.3, 0.5, 0.2]))
    assert plain.ray_entry(np.zeros(3) + [0, 0.5, 0], np.array([[0.0, 0.0, 1.0]]))[0] == pytest.approx(1.8)


def test_convex_hull_is_counter_clockwise():
    hull = convex_hull(np.array([[0, 0], [1, 0], [1, 1], [0, 1], [0.5, 0.5]]))
    assert len(hull) == 4
    area = 0.5 * sum(hull[i - 1][0] * hull[i][1] - hull[i][0] * hull[i - 1][1] for i in range(len(hull)))
    assert area > 0


def test_center_ray_and_tilts():
    assert list(achievable_tilts(0.0))[:2] == [-90.0, -80.0] and achievable_tilts(0.0)[-1] == 90.0
    assert achievable_tilts(5.0)[0] == -85.0
    d = center_ray_directions_many(np.array([90.0]), np.array([0.0, 30.0]))[0]
    assert np.allclose(d[0], [1, 0, 0], atol=1e-9)  # yaw 90 looks along +x
    assert d[1][1] == pytest.approx(-0.5)  # tilt 30 looks down


# -- the graph ----------------------------------------------------------------------------------------------------
def test_graph_room_bounds_and_inflated_obstacle():
    _, output = start(scene(wall("w", x=0.0, z=1.0, width=2.0)))
    graph = NavigationGraph.from_metadata(output)
    # room walls at +-5: the centre must stay 0.25 m + 1 cm clearance inside
    assert graph.is_free(4.73, 0.0) and not graph.is_free(4.76, 0.0)
    # the wall spans x in [-1, 1], z in [0.95, 1.05]: blocked on it and within the performer radius of it
    assert not graph.is_free(0.0, 1.0)
    assert not graph.is_free(0.0, 0.95 - 0.24)
    assert graph.is_free(0.0, 0.95 - 0.27)
    assert not graph.is_free(1.2, 1.0)  # 0.2 m beyond its end: still within the radius
    assert graph.is_free(1.3, 1.0)
    # the free-cell mask agrees with the exact check at cell centres
    rows, cols = graph.free.shape
    for r in range(0, rows, 7):
        for c in range(0, cols, 7):
            assert graph.free[r, c] == graph.is_free(float(graph.xs[c]), float(graph.zs[r]))
    # the lattice is anchored at the performer: its start is a node centre
    assert graph.node(pose_of(output)) == (0, 0, 0)


def test_graph_ignores_held_objects_and_the_ceiling_but_not_small_objects():
    controller, output = start(scene(ball("small", x=0.0, z=0.6, diameter=0.1), goal=retrieval("small")))
    graph = NavigationGraph.from_metadata(output)
    assert "ceiling" not in graph.obstacle_ids
    assert not graph.is_free(0.0, 0.6) and not graph.is_free(0.0, 0.6 - 0.3)  # a 10 cm ball obstructs too
    for action in ["LookDown"] * 5:
        output = controller.step(action)
    output = controller.step("PickupObject", objectImageCoordsX=300, objectImageCoordsY=200)
    assert output.return_status == "SUCCESSFUL"
    assert graph.is_free(0.0, 0.3) is False
    assert NavigationGraph.from_metadata(output).is_free(0.0, 0.6)  # held: no longer an obstacle


def test_shortest_path_length_matches_hand_count():
    _, output = start(scene())
    graph = NavigationGraph.from_metadata(output, grid=0.05)
    here = pose_of(output)
    ahead = NearGoal(np.array([0.0, 1.0]), np.array([0.0, 1.0]), 0.05)
    assert graph.shortest_path_length(here, ahead) == 10  # ten moves
    right = NearGoal(np.array([1.0, 0.0]), np.array([1.0, 0.0]), 0.05)
    assert graph.shortest_path_length(here, right) == 9 + 10  # a quarter turn (9 x 10 degrees), ten moves
    behind = NearGoal(np.array([0.0, -0.5]), np.array([0.0, -0.5]), 0.05)
    assert graph.shortest_path_length(here, behind) == 18 + 5
    facing_back = PredicateGoal(lambda p: abs(p.yaw - 180.0) < 1e-6)
    assert graph.shortest_path_length(here, facing_back) == 18
    assert graph.shortest_path_length(here, NearGoal(np.array([9.0, 0.0]), np.array([9.0, 0.0]), 0.1)) is None
    # the coarser default grid merges more poses: its paths may be a little longer, never shorter
    coarse = NavigationGraph.from_metadata(output)
    assert coarse.shortest_path_length(here, ahead) == 10 and coarse.shortest_path_length(here, right) == 19
    assert 23 <= coarse.shortest_path_length(here, behind) <= 26


def test_plans_are_executable_and_detour_around_a_wall():
    controller, output = start(scene(wall("w", x=0.0, z=1.0, width=3.0)))
    graph = NavigationGraph.from_metadata(output)
    goal = NearGoal(np.array([0.0, 2.0]), np.array([0.0, 2.0]), 0.1)
    path = graph.plan(pose_of(output), goal)
    assert path is not None and len(path) > 20  # straight through would be 19 moves
    for action, expected in path:
        output = controller.step(action)
        assert output.return_status == "SUCCESSFUL"
        got = pose_of(output)
        assert abs(got.x - expected.x) < 1e-6 and abs(got.z - expected.z) < 1e-6
    assert goal(pose_of(output))


def test_networkx_graph_agrees_with_the_search():
    data = scene()
    data["roomDimensions"] = {"x": 2, "y": 3, "z": 2}
    _, output = start(data)
    graph = NavigationGraph.from_metadata(output)
    nxg = graph.graph
    start_node = graph.node(pose_of(output))
    assert start_node in nxg and nxg.number_of_nodes() > 36
    assert {d["action"] for _, _, d in nxg.edges(data=True)} == {"MoveAhead", "RotateLeft", "RotateRight"}
    for _, _, d in nxg.edges(data=True):
        assert d["cost"] == 1
    for source, target, d in list(nxg.edges(data=True))[::50]:  # each edge is its action applied exactly
        after = dict(graph.successors(nxg.nodes[source]["pose"], [d["action"]]))[d["action"]]
        assert graph.node(after) == target
    goal = NearGoal(np.array([0.5, 0.5]), np.array([0.5, 0.5]), 0.1)
    searched = graph.shortest_path_length(pose_of(output), goal)
    assert searched is not None and searched <= graph_distance_to(nxg, start_node, goal)


def test_aim_goal_needs_a_clear_line_to_the_target():
    _, output = start(scene(ball("target", x=0.0, z=1.0, diameter=0.3), goal=retrieval()))
    target = Box.from_metadata(output.object_list[0]).scaled(0.5)
    goal = AimGoal(target, [], tilts=achievable_tilts(0.0), image_size=(600, 400))
    assert goal(Pose(0.0, 0.5, 0.0)) and goal.best_tilt(Pose(0.0, 0.5, 0.0)) > 0  # look down at it
    assert not goal(Pose(0.0, 0.5, 90.0))  # facing away
    assert not goal(Pose(0.0, -0.8, 0.0))  # out of reach
    screen = Box(np.array([0.0, 0.5, 0.75]), np.eye(3), np.array([0.5, 0.5, 0.05]))
    assert not AimGoal(target, [screen], tilts=achievable_tilts(0.0))(Pose(0.0, 0.5, 0.0))


def test_drop_goal_lands_beside_the_target():
    from mcs_plugin.experts import DropGoal

    # a 20 cm object held 40 cm ahead of the camera; the target's footprint spans x, z in [-0.5, 0.5] x [1, 2]
    corners = np.array([[0.3, -0.1], [0.5, -0.1], [0.5, 0.1], [0.3, 0.1]])
    goal = DropGoal((np.array([-0.5, 1.0]), np.array([0.5, 2.0])), corners)
    assert goal(Pose(0.0, 1.0 - 0.04 - 0.5, 0.0))  # lands 4 cm short of the target's near side
    assert not goal(Pose(0.0, 1.0 - 0.04 - 0.5, 180.0))  # facing away: lands 0.9 m short
    assert not goal(Pose(0.0, 1.0 - 0.5, 0.0))  # would land on the target
    assert np.allclose(goal.landing(Pose(0.0, 0.0, 90.0)), [0.4, 0.0])
    assert goal.batch(np.array([0.0, 0.0]), np.array([0.46, 0.46]), np.array([0.0, 180.0])).tolist() == [True, False]


# -- experts ------------------------------------------------------------------------------------------------------
def test_make_expert_and_controller_calls():
    assert make_expert("retrieval").__class__.__name__ == "RetrievalExpert"
    assert make_expert("multi retrieval").__class__.__name__ == "RetrievalExpert"
    assert make_expert("Traversal").__class__.__name__ == "TraversalExpert"
    assert make_expert("transferral").__class__.__name__ == "TransferralExpert"
    with pytest.raises(NoExpertError):
        make_expert("intuitive physics")
    assert to_controller_call("PickupObject", {}, 600, 400) == (
        "PickupObject", {"objectImageCoordsX": 300, "objectImageCoordsY": 200})
    assert to_controller_call("PutObject", {}, 64, 64) == (
        "PutObject", {"receptacleObjectImageCoordsX": 32, "receptacleObjectImageCoordsY": 32})
    assert to_controller_call("MoveAhead", {}, 64, 64) == ("MoveAhead", {})


@pytest.mark.parametrize("name, data", [
    ("open floor", scene(ball("target", x=1.0, z=2.0, diameter=0.2), goal=retrieval())),
    ("behind a wall", scene(wall("w", x=0.0, z=1.0, width=3.0), ball("target", x=0.0, z=2.0, diameter=0.2),
                            goal=retrieval())),
])
def test_retrieval_expert(name, data):
    result = run_expert(data, record_actions=True)
    assert result.success, result
    assert result.ended == "End" and result.actions[-2:] == ["PickupObject", "End"]
    assert set(result.actions) <= set(EXPERT_ACTIONS)


def test_retrieval_expert_opens_a_closed_chest():
    inside = ball("target", x=0.0, z=2.0, diameter=0.2)
    inside["shows"][0]["position"]["y"] = 0.14
    result = run_expert(scene(chest("box", x=0.0, z=2.0), inside, goal=retrieval()), record_actions=True)
    assert result.success, result
    assert result.actions.index("OpenObject") < result.actions.index("PickupObject")


def test_retrieval_expert_on_the_sample_scene_and_spl_reference():
    result = run_expert(str(SOCCER))
    assert result.success and result.ended == "End"
    _, output = start(str(SOCCER))
    length = make_expert("retrieval").shortest_path_length(output)
    assert length is not None and 8 <= length <= 15  # the ball is 2 m ahead: about 12 moves, no turns


def test_expert_is_deterministic_and_closed_loop():
    data = scene(wall("w", x=0.0, z=1.0, width=3.0), ball("target", x=0.5, z=2.0, diameter=0.2), goal=retrieval())
    first = run_expert(data, record_actions=True)
    second = run_expert(data, record_actions=True)
    assert first.actions == second.actions
    # hand over after actions the expert did not choose: it plans again from where the performer is
    controller, output = start(data)
    for action in ["RotateLeft"] * 4 + ["MoveAhead"] * 3:
        output = controller.step(action)
    expert = make_expert("retrieval")
    for _ in range(300):
        choice = expert.next_action(output)
        assert choice is not None, expert.reason
        if choice[0] == "End":
            break
        output = controller.step(*to_controller_call(choice[0], choice[1], *output.camera_aspect_ratio)[:1],
                                 **to_controller_call(choice[0], choice[1], *output.camera_aspect_ratio)[1])
    assert output.reward == 1.0


def test_traversal_expert():
    data = scene(wall("w", x=0.0, z=1.0, width=3.0), ball("target", x=0.0, z=2.5, diameter=0.2),
                 goal={"category": "traversal", "metadata": {"target": {"id": "target"}}})
    result = run_expert(data, record_actions=True)
    assert result.success and result.actions[-1] == "End"
    assert set(result.actions) <= {"MoveAhead", "RotateLeft", "RotateRight", "End"}


@pytest.mark.parametrize("relation, first, second", [
    ("next_to", ball("b", x=-1.0, z=1.5, diameter=0.2), table("t", 1.5, 2.0)),
    ("on_top_of", block("b", -1.0, 1.5), table("t", 1.5, 2.0)),
])
def test_transferral_expert(relation, first, second):
    result = run_expert(scene(first, second, goal=transferral("b", "t", relation)), record_actions=True)
    assert result.success, result
    place = "PutObject" if relation == "on_top_of" else "DropObject"
    assert "PickupObject" in result.actions and place in result.actions and result.actions[-1] == "End"


def test_transferral_expert_puts_on_a_high_turned_table_from_where_its_centre_is_in_reach():
    """MCS lays a receptacle's spawn area along the room's axes unturned, so from a corner of a table turned 45
    degrees the nearest spot lies in the air beside it. table_18's top (0.9 m) is above the camera: the expert
    puts from where the top's centre is in reach, where MCS sets the object at the centre."""
    turned = {"id": "t", "type": "table_18",
              "shows": [{"stepBegin": 0, "position": {"x": 1.0, "y": 0, "z": 1.5}, "rotation": {"x": 0, "y": 225, "z": 0}}]}
    result = run_expert(scene(block("b", -1.0, 1.0), turned, goal=transferral("b", "t", "on_top_of")),
                        record_actions=True)
    assert result.success, result
    assert result.actions.count("PutObject") == 1


def test_relationship_holds_mirrors_the_reward():
    _, output = start(scene(block("b", 1.0, 1.0), table("t", 1.6, 1.0), goal=transferral("b", "t", "next_to")))
    objects = {o.uuid: o for o in output.object_list}
    # table_11 is 1 m wide: its footprint starts at x = 1.1; the 15 cm block ends at 1.075
    assert relationship_holds(objects["b"], objects["t"], "next_to") == (output.reward == 1.0)
    assert not relationship_holds(objects["b"], objects["t"], "on_top_of")


# -- command line -------------------------------------------------------------------------------------------------
def test_cli_json_shape(tmp_path, capsys):
    (tmp_path / "a.json").write_text(json.dumps(scene(ball("target", x=0.0, z=1.5, diameter=0.2), goal=retrieval())))
    (tmp_path / "b.json").write_text(json.dumps(
        scene(ball("target", x=1.0, z=1.0, diameter=0.2), goal={"category": "traversal",
                                                                  "metadata": {"target": {"id": "target"}}})))
    assert expert_cli.main([str(tmp_path), "--json", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert len(out.strip().splitlines()) == 1
    data = json.loads(out)
    assert data == {"retrieval": {"success": 1, "total": 1}, "traversal": {"success": 1, "total": 1}}


def test_cli_register_adds_the_subcommand():
    import argparse

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    expert_cli.register(sub)
    args = parser.parse_args(["expert", "x.json", "--json", "--max-steps", "50"])
    assert args.handler is expert_cli.run and args.max_steps == 50 and args.json
