"""A recorded test turned about the room's vertical axis or mirrored (mcs_plugin.conformance_variants)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcs_plugin.conformance import corpus_files_dir, read_actions, run_test
from mcs_plugin.conformance_variants import (Variant, equivariance_errors, id_renaming, variant_action, variant_scene,
                                             variant_step_output, write_variant_corpus)
from mcs_plugin.mcs.scene import load_scene_json_file
from tests.sim_scenes import ball, scene

CORPUS = Path(__file__).parent / "data" / "conformance"


def test_a_quarter_turn_takes_forward_to_the_right_exactly_and_the_mirror_comes_first():
    assert Variant(90).point(0.0, 1.0) == (1.0, -0.0)
    assert Variant(180).point(0.25, -4.5) == (-0.25, 4.5)
    assert Variant(270).point(*Variant(90).point(0.3, 0.7)) == (0.3, 0.7)
    assert Variant(30).point(1.0, 0.0) == pytest.approx((0.8660254, -0.5))
    assert Variant(90, mirror=True).point(1.0, 2.0) == (2.0, 1.0)
    assert Variant(mirror=True).yaw(30) == 330 and Variant(90, mirror=True).yaw(30) == 60


def test_a_step_output_turns_positions_directions_yaws_walls_and_cells():
    step = {"position_x": 1.0, "position_z": [2.0, 2.5], "rotation_y": 300, "holes": [[0, 1]],
            "lava": [[-0.5, 0.5, 0.5, 1.5]], "room_dimensions": {"x": 12, "y": 3, "z": 8},
            "objects": [{"id": "ball", "position_x": 0.5, "position_z": 1.0, "direction_x": 0.6, "direction_z": 0.8,
                         "rotation_y": 10}],
            "structural_objects": [{"id": "wall_front", "visible": True}]}
    turned = variant_step_output(step, Variant(90), {"wall_front": "wall_right"})
    assert (turned["position_x"], turned["position_z"]) == ([2.0, 2.5], -1.0)
    assert turned["rotation_y"] == 30
    assert turned["holes"] == [[1, 0]] and turned["lava"] == [[0.5, -0.5, 1.5, 0.5]]
    assert turned["room_dimensions"] == {"x": 8, "y": 3, "z": 12}
    moved = turned["objects"][0]
    assert (moved["position_x"], moved["position_z"], moved["direction_x"], moved["direction_z"]) == (1.0, -0.5, 0.8, -0.6)
    assert moved["rotation_y"] == 100
    assert turned["structural_objects"][0]["id"] == "wall_right"


def test_an_angle_that_is_not_a_quarter_turn_leaves_ranges_and_the_room_out():
    step = {"position_x": 1.0, "position_z": [2.0, 2.5], "room_dimensions": {"x": 10, "y": 3, "z": 10},
            "structural_objects": [{"id": "wall_left"}, {"id": "floor"}, {"id": "ramp"}]}
    turned = variant_step_output(step, Variant(30))
    assert "position_x" not in turned and "position_z" not in turned and "room_dimensions" not in turned
    assert [o["id"] for o in turned["structural_objects"]] == ["ramp"]
    assert variant_scene(scene(), Variant(30))["roomDimensions"] == {"x": 15, "y": 3, "z": 15}  # holds the turned 10 m room


def test_scripts_turn_in_the_room_axes_only_where_they_are_given_in_them():
    moving = ball(moves=[{"stepBegin": 1, "stepEnd": 2, "vector": {"x": 0, "y": 0, "z": 0.1}}],
                  forces=[{"stepBegin": 1, "stepEnd": 1, "vector": {"x": 0, "y": 0, "z": 5}},
                          {"stepBegin": 2, "stepEnd": 2, "relative": True, "vector": {"x": 0, "y": 0, "z": 5}}],
                  teleports=[{"stepBegin": 3, "position": {"x": 1, "y": 0, "z": 0}}])
    teleport = {"goal": {"action_list": [["EndHabituation,xPosition=1,zPosition=2,yRotation=90"]]}}
    turned = variant_scene(scene(moving, start=(0.0, 1.0), yaw=45, **teleport), Variant(90))
    obj = turned["objects"][0]
    assert obj["moves"][0]["vector"] == {"x": 0, "y": 0, "z": 0.1}  # in the object's own axes, which turn with it
    assert obj["forces"][0]["vector"] == {"x": 5, "y": 0, "z": -0.0}
    assert obj["forces"][1]["vector"] == {"x": 0, "y": 0, "z": 5}  # relative: its own axes
    assert obj["teleports"][0]["position"] == {"x": 0, "y": 0, "z": -1}
    assert obj["shows"][0]["rotation"]["y"] == 90  # a show without a rotation sets (0, 0, 0), which turns too
    assert turned["performerStart"]["position"]["x"] == 1.0 and turned["performerStart"]["rotation"]["y"] == 135
    assert turned["goal"]["action_list"] == [["EndHabituation,xPosition=2,zPosition=-1,yRotation=180"]]


def test_a_turn_renames_walls_and_floor_tiles_in_actions():
    holes = scene(holes=[{"x": 1, "z": 1}])
    renaming = id_renaming(holes, Variant(90))
    assert renaming["wall_front"] == "wall_right" and renaming["wall_left"] == "wall_front"
    assert renaming["floor149"] == "floor89"  # the tile at (0, 5) of a 10 m room goes to (5, 0)
    assert variant_action("MoveObject,objectId=floor149", Variant(90), renaming) == "MoveObject,objectId=floor89"
    assert id_renaming(scene(), Variant(90)).get("floor149") is None  # one floor object without holes or lava
    mirrored = id_renaming(holes, Variant(mirror=True))
    assert mirrored["wall_left"] == "wall_right" and mirrored["floor150"] == "floor148"


def test_the_mirror_swaps_left_and_right_in_actions():
    mirror = Variant(mirror=True)
    assert variant_action("MoveLeft", mirror, {}) == "MoveRight"
    assert variant_action("RotateRight", mirror, {}) == "RotateLeft"
    assert variant_action("MoveObject,objectImageCoordsX=100,objectImageCoordsY=200,lateral=1", mirror, {}) == \
        "MoveObject,objectImageCoordsX=500,objectImageCoordsY=200,lateral=-1"
    assert variant_action("RotateObject,objectId=ball", mirror, {}) == "RotateObject,objectId=ball,clockwise=false"
    assert variant_action("RotateObject,objectId=ball,clockwise=false", mirror, {}) == \
        "RotateObject,objectId=ball,clockwise=true"
    assert variant_action("TorqueObject,objectId=ball", mirror, {}) == "TorqueObject,objectId=ball,force=-0.5"


@pytest.mark.parametrize("test", ["031", "164", "172", "188"])
def test_recorded_tests_pass_turned_a_quarter_turn(tmp_path, test):
    """A block stacked on another, actions on a tiled floor's tiles, a teleport at EndHabituation, a container
    dragged with what it holds: each passes at oracle as recorded and turned."""
    names, left_out = write_variant_corpus(corpus_files_dir(CORPUS), tmp_path, Variant(90), [test])
    assert len(names) == 1 and not left_out
    assert run_test(tmp_path, names[0], "oracle").failures == []


@pytest.mark.parametrize("test", ["098", "211"])
def test_recorded_tests_pass_mirrored(tmp_path, test):
    """A turtle rotated by RotateObject (clockwise by default) into a wall, a rect tool moved onto another off to
    one side: each passes at oracle as recorded and mirrored."""
    names, left_out = write_variant_corpus(corpus_files_dir(CORPUS), tmp_path, Variant(mirror=True), [test])
    assert len(names) == 1 and not left_out
    assert run_test(tmp_path, names[0], "oracle").failures == []


def test_a_scene_with_a_hooked_tool_has_no_mirror_image(tmp_path):
    names, left_out = write_variant_corpus(corpus_files_dir(CORPUS), tmp_path, Variant(mirror=True), ["205"])
    assert names == [] and "mirror image" in left_out["205.tool_on_hooked_tool_offset_right"]


@pytest.mark.parametrize("variant", [Variant(30), Variant(90, mirror=True)])
def test_the_simulator_replays_a_varied_recorded_test_varied(variant):
    """The tool's own check, sim against sim: a block stacked on another and a dragged container."""
    folder = corpus_files_dir(CORPUS)
    for test in ("031.stacking_blocks_bottom_to_top", "188.shell_game"):
        scene_data = load_scene_json_file(folder / f"{test}.scene.json")
        assert equivariance_errors(scene_data, read_actions(folder / f"{test}.actions.txt"), variant) == []
