"""MCS API surface: enums against the MCS docs, action strings, action availability rules, output objects."""

import json

import numpy as np
import pytest
from PIL import Image

from mcs_plugin.mcs import (
    DEFAULT_ACTIONS,
    Action,
    GoalCategory,
    GoalMetadata,
    Material,
    ObjectMetadata,
    ReturnStatus,
    StepMetadata,
    format_action,
    parse_action_string,
    to_material_list,
)

# Transcribed from the MCS API docs (seed 000: newest API; seed 002: older API) and MCS 0.7.4.
SEED_000_ACTIONS = {
    "CLOSE_OBJECT": "CloseObject", "CRAWL": "Crawl", "DROP_OBJECT": "DropObject",
    "END_HABITUATION": "EndHabituation", "LIE_DOWN": "LieDown", "LOOK_DOWN": "LookDown", "LOOK_UP": "LookUp",
    "MOVE_AHEAD": "MoveAhead", "MOVE_BACK": "MoveBack", "MOVE_LEFT": "MoveLeft", "MOVE_RIGHT": "MoveRight",
    "OPEN_OBJECT": "OpenObject", "PASS": "Pass", "PICKUP_OBJECT": "PickupObject", "PULL_OBJECT": "PullObject",
    "PUSH_OBJECT": "PushObject", "PUT_OBJECT": "PutObject", "ROTATE_LEFT": "RotateLeft",
    "ROTATE_RIGHT": "RotateRight", "STAND": "Stand", "THROW_OBJECT": "ThrowObject",
}  # fmt: skip
SEED_002_ACTIONS = {
    "MoveAhead", "MoveRight", "MoveLeft", "MoveBack", "RotateLook", "PickupObject", "PutObject", "DropObject",
    "ThrowObject", "PullObject", "PushObject", "OpenObject", "CloseObject", "LieDown", "Crawl", "Stand", "Pass",
    "RotateObject", "RotateObjectInHand",
}  # fmt: skip
MCS_074_ACTIONS = {
    "Initialize", "CloseObject", "DropObject", "MoveAhead", "MoveBack", "MoveLeft", "MoveRight", "OpenObject",
    "PickupObject", "PullObject", "PushObject", "PutObject", "TorqueObject", "RotateObject", "MoveObject",
    "RotateLeft", "RotateRight", "LookUp", "LookDown", "EndHabituation", "InteractWithAgent", "Pass", "EndScene",
}  # fmt: skip
SEED_STATUSES = {
    "FAILED", "HAND_IS_FULL", "IS_CLOSED_COMPLETELY", "IS_OPENED_COMPLETELY", "NOT_HELD", "NOT_INTERACTABLE",
    "NOT_OBJECT", "NOT_OPENABLE", "NOT_PICKUPABLE", "NOT_RECEPTACLE", "OBSTRUCTED", "OUT_OF_REACH", "SUCCESSFUL",
    "SUCCESSFUL_WITH_INVALID_PARAMETERS", "WRONG_POSE",
}  # fmt: skip
MCS_074_STATUSES = {
    "CANNOT_ROTATE", "IS_CLOSED_COMPLETELY", "IS_OPENED_COMPLETELY", "NOT_HELD", "NOT_INTERACTABLE",
    "NOT_MOVEABLE", "NOT_OBJECT", "NOT_OPENABLE", "NOT_RECEPTACLE", "NOT_PICKUPABLE", "NOT_VISIBLE", "IS_LOCKED",
    "OBSTRUCTED", "OUT_OF_REACH", "NOT_AGENT", "AGENT_IS_BUSY", "AGENT_CURRENTLY_INTERACTING_WITH_PERFORMER",
    "SUCCESSFUL", "SUCCESSFUL_WITH_INVALID_PARAMETERS", "UNDEFINED", "FAILED",
}  # fmt: skip


# --- enums ------------------------------------------------------------------------------------------------


def test_action_enum_has_every_seed_000_member_with_its_value():
    for name, value in SEED_000_ACTIONS.items():
        assert Action[name].value == value


def test_action_enum_covers_seed_002_and_mcs_074_actions():
    values = {a.value for a in Action}
    assert SEED_002_ACTIONS <= values
    assert MCS_074_ACTIONS <= values
    assert values == SEED_002_ACTIONS | MCS_074_ACTIONS | set(SEED_000_ACTIONS.values())
    assert Action.ROTATE_LOOK == "RotateLook" and Action.END_SCENE == "EndScene"
    assert Action.INITIALIZE == "Initialize"


def test_action_is_a_str_that_formats_as_its_value():
    assert isinstance(Action.MOVE_AHEAD, str)
    assert f"{Action.MOVE_AHEAD}" == "MoveAhead" and str(Action.PASS) == "Pass"
    assert Action("PickupObject") is Action.PICKUP_OBJECT


def test_default_actions_are_all_but_initialize_and_end_habituation():
    assert "Initialize" not in DEFAULT_ACTIONS and "EndHabituation" not in DEFAULT_ACTIONS
    assert set(DEFAULT_ACTIONS) == {a.value for a in Action} - {"Initialize", "EndHabituation"}
    assert "EndScene" in DEFAULT_ACTIONS and "RotateLook" in DEFAULT_ACTIONS and "Crawl" in DEFAULT_ACTIONS
    assert len(DEFAULT_ACTIONS) == len(set(DEFAULT_ACTIONS)) == 27


def test_return_status_covers_seed_and_074_and_value_equals_name():
    names = {s.name for s in ReturnStatus}
    assert SEED_STATUSES | MCS_074_STATUSES == names
    assert all(s.value == s.name for s in ReturnStatus)
    assert ReturnStatus.SUCCESSFUL == "SUCCESSFUL" and str(ReturnStatus.OBSTRUCTED) == "OBSTRUCTED"


def test_goal_categories_match_docs():
    assert {c.name: c.value for c in GoalCategory} == {
        "AGENTS": "agents", "IMITATION": "imitation", "INTUITIVE_PHYSICS": "intuitive physics",
        "PASSIVE": "passive", "RETRIEVAL": "retrieval", "MULTI_RETRIEVAL": "multi retrieval",
        "TRANSFERRAL": "transferral", "TRAVERSAL": "traversal",
    }  # fmt: skip


def test_materials_match_seed_000_and_salient_conversion():
    assert [m.value for m in Material] == [
        "CERAMIC", "FABRIC", "FOOD", "GLASS", "METAL", "ORGANIC", "PAPER", "PLASTIC", "RUBBER", "SOAP",
        "SPONGE", "STONE", "UNDEFINED", "WAX", "WOOD",
    ]  # fmt: skip
    assert to_material_list(["wood", "Metal", "unobtainium"]) == ["WOOD", "METAL"]


# --- action strings ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Pass", ("Pass", {})),
        ("RotateLook,rotation=180,horizon=-10", ("RotateLook", {"rotation": 180.0, "horizon": -10.0})),
        (" MoveObject , objectId = tool , straight=1 ", ("MoveObject", {"objectId": "tool", "straight": 1.0})),
        ("RotateObject,clockwise=False,objectId=tool", ("RotateObject", {"clockwise": False, "objectId": "tool"})),
        ("RotateObject,clockwise=true", ("RotateObject", {"clockwise": True})),
        ("EndHabituation,xPosition=2.94,yRotation=340", ("EndHabituation", {"xPosition": 2.94, "yRotation": 340.0})),
        ("PickupObject,objectId=12", ("PickupObject", {"objectId": "12"})),
        ("\ufeffLookDown", ("LookDown", {})),
    ],
)  # fmt: skip
def test_parse_action_string(text, expected):
    assert parse_action_string(text) == expected


@pytest.mark.parametrize("text", ["", " ", "RotateLook,a=", "RotateLook,=b", "RotateLook,rotation", "Pass,"])
def test_parse_action_string_rejects_malformed_items_naming_the_text(text):
    with pytest.raises(ValueError) as error:
        parse_action_string(text)
    assert repr(text) in str(error.value)


@pytest.mark.parametrize(
    "action, params",
    [
        ("Pass", {}),
        (Action.ROTATE_LOOK, {"rotation": 180.0, "horizon": -10.5}),
        ("RotateObject", {"objectId": "tool_1", "clockwise": False}),
        ("PickupObject", {"objectImageCoordsX": 300.0, "objectImageCoordsY": 200.0}),
    ],
)
def test_format_action_round_trips(action, params):
    text = format_action(action, params)
    assert parse_action_string(text) == (str(action), params)
    assert format_action(*parse_action_string(text)) == text


def test_format_action_writes_integral_floats_as_ints():
    assert format_action(Action.ROTATE_LOOK, {"rotation": 180.0}) == "RotateLook,rotation=180"
    assert format_action("Pass") == "Pass"


# --- action availability --------------------------------------------------------------------------------


def scripted_goal(**overrides) -> GoalMetadata:
    """Two preview steps, then three scripted steps, the second with an EndHabituation teleport."""
    values = dict(
        action_list=[
            ["Pass"],
            ["EndHabituation,xPosition=2.94,zPosition=-6.6,yRotation=340", "Pass"],
            [],
        ],
        category="imitation",
        last_preview_phase_step=2,
        last_step=6,
    )
    values.update(overrides)
    return GoalMetadata(**values)


def test_action_list_strings_are_parsed_on_construction():
    goal = scripted_goal()
    assert goal.action_list[1][0] == ("EndHabituation", {"xPosition": 2.94, "zPosition": -6.6, "yRotation": 340.0})


def test_preview_phase_allows_only_pass():
    goal = scripted_goal()
    assert goal.retrieve_action_list_at_step(0) == [("Pass", {})]
    assert goal.retrieve_action_list_at_step(1) == [("Pass", {})]


def test_scripted_steps_are_offset_by_the_preview_phase_and_hide_end_habituation_params():
    goal = scripted_goal()
    assert goal.retrieve_action_list_at_step(2) == [("Pass", {})]
    assert goal.retrieve_action_list_at_step(3) == [("EndHabituation", {}), ("Pass", {})]
    assert goal.hidden_params_at_step(3) == {"xPosition": 2.94, "zPosition": -6.6, "yRotation": 340.0}
    assert goal.hidden_params_at_step(2) == {}
    # stripping params in the output must not lose them in the goal
    assert goal.action_list[1][0][1]["yRotation"] == 340.0


def test_empty_or_missing_step_lists_fall_back_to_defaults():
    goal = scripted_goal()
    everything = [(name, {}) for name in DEFAULT_ACTIONS]
    assert goal.retrieve_action_list_at_step(4) == everything  # [] in the scene
    assert goal.retrieve_action_list_at_step(5) == everything  # past the scripted steps
    assert goal.retrieve_action_list_at_step(5, is_passive=True) == [("Pass", {})]
    assert GoalMetadata().retrieve_action_list_at_step(0) == everything
    assert GoalMetadata().retrieve_action_list_at_step(0, is_passive=True) == [("Pass", {})]


def test_last_step_ends_the_action_list():
    goal = scripted_goal()
    assert goal.retrieve_action_list_at_step(6) == []
    assert goal.retrieve_action_list_at_step(7) == []


def test_end_scene_only_when_lava_allowance_exceeded_or_sequence_incorrect():
    goal = scripted_goal(steps_allowed_in_lava=2)
    assert goal.retrieve_action_list_at_step(0, steps_on_lava=2) == [("Pass", {})]
    assert goal.retrieve_action_list_at_step(0, steps_on_lava=3) == [("EndScene", {})]
    assert goal.retrieve_action_list_at_step(9, steps_on_lava=3) == [("EndScene", {})]
    assert goal.retrieve_action_list_at_step(3, triggered_by_sequence_incorrect=True) == [("EndScene", {})]
    assert GoalMetadata().retrieve_action_list_at_step(4, steps_on_lava=1) == [("EndScene", {})]


def test_returned_params_are_copies():
    goal = GoalMetadata(action_list=[["RotateLook,rotation=180"]])
    goal.retrieve_action_list_at_step(0)[0][1]["rotation"] = 0.0
    assert goal.retrieve_action_list_at_step(0) == [("RotateLook", {"rotation": 180.0})]


def test_is_action_allowed_compares_params_like_mcs():
    goal = GoalMetadata(action_list=[["RotateLook,rotation=180", "MoveAhead"], ["EndHabituation,xPosition=1"]])
    assert goal.is_action_allowed(0, "RotateLook", {"rotation": "180"})
    assert goal.is_action_allowed(0, Action.ROTATE_LOOK, {"rotation": 180})
    assert goal.is_action_allowed(0, "RotateLook", {"rotation": 180.0})
    assert not goal.is_action_allowed(0, "RotateLook", {"rotation": 90})
    assert not goal.is_action_allowed(0, "RotateLook", {"rotation": 180, "horizon": 10})
    assert goal.is_action_allowed(0, "MoveAhead", {"amount": 0.5})  # entries without params allow any params
    assert not goal.is_action_allowed(0, "Pass")
    assert goal.is_action_allowed(1, "EndHabituation", {"xPosition": 99})  # hidden params are re-inserted
    assert not goal.is_action_allowed(0, "MoveAhead", steps_on_lava=1)
    assert goal.is_action_allowed(0, "EndScene", steps_on_lava=1)


def test_target_ids_and_passive_category():
    goal = GoalMetadata(
        category="retrieval",
        metadata={"target": {"id": "ball"}, "targets": [{"id": "a"}, {"id": "ball"}], "target_1": {"id": "t1"},
                  "target_2": {"id": "t2"}, "relationship": ["target_1", "next_to", "target_2"]},
    )  # fmt: skip
    assert goal.target_ids() == ["ball", "a", "t1", "t2"]
    assert GoalMetadata().target_ids() == []
    assert not goal.is_passive_category
    assert all(GoalMetadata(category=c).is_passive_category for c in ("agents", "intuitive physics", "passive"))


def test_goal_to_dict_is_json():
    data = scripted_goal(metadata={"target": {"id": "x"}}).to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["action_list"][1][0] == ["EndHabituation", {"xPosition": 2.94, "zPosition": -6.6, "yRotation": 340.0}]
    assert GoalMetadata().to_dict()["action_list"] is None


# --- output objects ---------------------------------------------------------------------------------------


def test_object_metadata_defaults_match_mcs():
    obj = ObjectMetadata()
    assert (obj.uuid, obj.color, obj.shape, obj.mass) == ("", None, "", 0.0)
    assert obj.distance == obj.distance_in_steps == obj.distance_in_world == -1.0
    assert not any((obj.held, obj.visible, obj.is_open, obj.openable, obj.locked))
    assert obj.material_list == [] and obj.state_list == [] and obj.dimensions == []
    assert ObjectMetadata().material_list is not obj.material_list


def test_object_metadata_segment_color_alias_and_to_dict():
    position = {"x": np.float32(0.5), "y": 0.0, "z": 1.0}
    obj = ObjectMetadata(uuid="ball", color={"r": 1, "g": 2, "b": 3}, position=position)
    assert obj.segment_color == {"r": 1, "g": 2, "b": 3}
    obj.segment_color = {"r": 9, "g": 9, "b": 9}
    assert obj.color == {"r": 9, "g": 9, "b": 9}
    data = json.loads(json.dumps(obj.to_dict()))
    assert data["segment_color"] == data["color"] == {"r": 9, "g": 9, "b": 9}
    assert data["position"]["x"] == 0.5 and data["uuid"] == "ball"
    assert "simulation_agent_is_holding_held_object" in data


def test_step_metadata_has_every_spec_field():
    fields = set(StepMetadata.__dataclass_fields__)
    assert fields == {
        "action_list", "camera_aspect_ratio", "camera_clipping_planes", "camera_field_of_view", "camera_height",
        "depth_map_list", "goal", "habituation_trial", "haptic_feedback", "head_tilt", "holes", "image_list",
        "lava", "object_list", "object_mask_list", "performer_radius", "performer_reach",
        "physics_frames_per_second", "pose", "position", "resolved_object", "resolved_receptacle",
        "return_status", "reward", "room_dimensions", "rotation", "segmentation_colors", "step_number",
        "steps_on_lava", "structural_object_list", "triggered_by_sequence_incorrect",
    }  # fmt: skip


def test_step_metadata_to_dict_is_json_without_images():
    step = StepMetadata(
        action_list=[("Pass", {})],
        camera_aspect_ratio=(600, 400),
        camera_clipping_planes=(0.01, 150.0),
        depth_map_list=[np.zeros((4, 6), dtype=np.float32)],
        image_list=[Image.new("RGB", (6, 4))],
        object_mask_list=[Image.new("RGB", (6, 4))],
        goal=GoalMetadata(action_list=[["Pass"]], category="passive"),
        object_list=[ObjectMetadata(uuid="a", distance=np.float64(2.0))],
        holes=[(1, 2)],
        lava=[(0.5, 0.5, 1.5, 1.5)],
        position={"x": np.float32(1.5), "y": 0.762, "z": 0.0},
        return_status=ReturnStatus.SUCCESSFUL,
        reward=np.float32(-0.001),
        step_number=3,
    )
    data = step.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert not {"image_list", "depth_map_list", "object_mask_list"} & set(data)
    assert data["action_list"] == [["Pass", {}]]
    assert data["camera_aspect_ratio"] == [600, 400]
    assert data["goal"]["category"] == "passive" and data["object_list"][0]["uuid"] == "a"
    assert data["holes"] == [[1, 2]] and data["return_status"] == "SUCCESSFUL"
    assert data["position"]["x"] == 1.5


def test_copy_without_images_keeps_everything_else():
    step = StepMetadata(image_list=[Image.new("RGB", (2, 2))], depth_map_list=[np.zeros((2, 2))], step_number=4)
    light = step.copy_without_images()
    assert light.image_list == [] and light.depth_map_list == [] and light.object_mask_list == []
    assert light.step_number == 4 and len(step.image_list) == 1
