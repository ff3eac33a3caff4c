"""Scene schema: every real scene parses; MCS-style tolerance; error messages name the file and JSON path."""

import json
from pathlib import Path

import pytest

from mcs_plugin.mcs import (
    DEFAULT_ACTIONS,
    Scene,
    SceneError,
    load_scene,
    load_scene_json_file,
    parse_scene,
    validate_scene_file,
)

DATA = Path(__file__).parent / "data"
SCENE_FILES = sorted((DATA / "scenes").glob("*.json")) + sorted((DATA / "conformance" / "data").glob("*.scene.json"))

MINIMAL = {
    "name": "minimal",
    "roomDimensions": {"x": 10, "y": 3, "z": 10},
    "performerStart": {"position": {"x": 0, "z": 0}, "rotation": {"x": 0, "y": 0}},
    "objects": [
        {"id": "target", "type": "soccer_ball", "pickupable": True, "mass": 1,
         "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.11, "z": 1.0}}]}
    ],
    "goal": {"category": "retrieval", "last_step": 100, "metadata": {"target": {"id": "target"}}},
}  # fmt: skip


def minimal(**changes) -> dict:
    """A fresh copy of the minimal scene with top-level keys replaced."""
    data = json.loads(json.dumps(MINIMAL))
    data.update(changes)
    return data


def test_corpus_is_present():
    assert len(SCENE_FILES) == 185


@pytest.mark.parametrize("path", SCENE_FILES, ids=lambda p: p.name)
def test_every_real_scene_parses(path):
    scene = load_scene(path)
    assert scene.name and all(obj.shows for obj in scene.objects)
    # validate adds goal consistency; a few recorded MCS test scenes name a goal target they lack (MCS runs them)
    for problem in validate_scene_file(path):
        assert "goal.metadata.target.id: goal target" in problem


def test_bom_files_are_accepted(tmp_path):
    assert any(p.read_bytes().startswith(b"\xef\xbb\xbf") for p in SCENE_FILES)
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(MINIMAL).encode())
    assert load_scene_json_file(path)["name"] == "minimal"
    assert load_scene(path).objects[0].id == "target"


def test_minimal_scene_fields_are_snake_case():
    scene = parse_scene(minimal())
    obj = scene.objects[0]
    assert (obj.type, obj.pickupable, obj.mass, obj.moveable) == ("soccer_ball", True, 1.0, None)
    assert obj.shows[0].step_begin == 0 and obj.shows[0].position.y == 0.11
    assert (obj.shows[0].scale.x, obj.shows[0].scale.y, obj.shows[0].scale.z) == (1.0, 1.0, 1.0)
    assert scene.performer_start.rotation.y == 0.0 and scene.room_dimensions.y == 3.0
    assert scene.goal.last_step == 100 and scene.object_by_id("target") is obj
    assert scene.object_by_id("nope") is None


def test_extra_keys_are_ignored():
    data = minimal(debug={"x": 1}, training=True, sceneNumber=3)
    data["objects"][0].update(labels=["a"], info=["tiny"], stackTarget=True, dimensions={"x": 1})
    data["goal"]["domain_list"] = ["objects"]
    assert parse_scene(data).objects[0].id == "target"


def test_goal_keys_snake_and_camel():
    snake = parse_scene(minimal(goal={
        "last_step": 5, "action_list": [["Pass"]], "habituation_total": 2, "last_preview_phase_step": 1,
        "triggered_by_target_sequence": ["c1"],
    })).goal  # fmt: skip
    camel = parse_scene(minimal(goal={
        "lastStep": 5, "actionList": [["Pass"]], "habituationTotal": 2, "lastPreviewPhaseStep": 1,
        "triggeredByTargetSequence": ["c1"],
    })).goal  # fmt: skip
    assert snake == camel
    assert (snake.last_step, snake.action_list, snake.habituation_total) == (5, [["Pass"]], 2)
    assert snake.last_preview_phase_step == 1 and snake.triggered_by_target_sequence == ["c1"]


def test_snake_case_scene_keys_are_accepted():
    data = minimal(room_dimensions={"x": 12, "y": 4, "z": 8}, intuitive_physics="true")
    data.pop("roomDimensions")
    data["objects"][0]["shows"] = [{"step_begin": 2, "position": {"x": 1}}]
    scene = parse_scene(data)
    assert scene.room_dimensions.x == 12 and scene.intuitive_physics is True
    assert scene.objects[0].shows[0].step_begin == 2


def test_string_booleans_and_coerced_numbers():
    data = minimal(isometric="true", restrictOpenDoors="false", version="2")
    data["objects"][0].update(pickupable="false", kinematic="True", mass="2.5", id=7)
    data["objects"][0]["shows"][0].update(stepBegin=1.0, position={"x": "1.5", "y": 0, "z": 2})
    scene = parse_scene(data)
    obj = scene.objects[0]
    assert scene.isometric is True and scene.restrict_open_doors is False and scene.version == 2
    assert obj.pickupable is False and obj.kinematic is True and obj.mass == 2.5 and obj.id == "7"
    assert obj.shows[0].step_begin == 1 and obj.shows[0].position.x == 1.5


def test_null_for_optional_key_means_not_given():
    data = minimal()
    data["objects"][0].update(salientMaterials=None, moves=None, locationParent=None)
    obj = parse_scene(data).objects[0]
    assert obj.salient_materials == [] and obj.moves == [] and obj.location_parent is None


@pytest.mark.parametrize(
    "dims, expected",
    [
        (None, (10.0, 3.0, 10.0)),
        ({"x": 0, "y": 0, "z": 0}, (10.0, 3.0, 10.0)),
        ({"x": 12, "y": 0, "z": 5}, (12.0, 3.0, 5.0)),
    ],
)
def test_room_dimensions_default(dims, expected):
    data = minimal()
    data.pop("roomDimensions")
    if dims is not None:
        data["roomDimensions"] = dims
    room = parse_scene(data).room_dimensions
    assert (room.x, room.y, room.z) == expected


def test_uniform_numeric_scale():
    data = minimal()
    data["objects"][0]["shows"][0]["scale"] = 2
    scale = parse_scene(data).objects[0].shows[0].scale
    assert (scale.x, scale.y, scale.z) == (2.0, 2.0, 2.0)


def test_sub_configs_are_parsed():
    objects = [obj for scene_file in SCENE_FILES for obj in load_scene(scene_file).objects]
    walker = next(obj for obj in objects if obj.agent_movement is not None)
    assert walker.agent_movement.sequence[0].animation and walker.agent_settings is not None
    animated = next(obj for obj in objects if obj.actions)
    assert animated.actions[0].id and isinstance(animated.actions[0].is_loop_animation, bool)
    platform = next(obj for obj in objects if obj.lips)
    assert isinstance(platform.lips.front, bool)
    lid = next(obj for obj in objects if obj.lid_attachment)
    assert lid.lid_attachment.lid_attachment_obj_id
    mover = next(obj for obj in objects if obj.moves)
    assert mover.moves[0].step_end >= mover.moves[0].step_begin
    opener = next(obj for obj in objects if obj.open_close)
    assert isinstance(opener.open_close[0].open, bool)
    assert any(obj.location_parent for obj in objects) and any(obj.states for obj in objects)


def test_is_passive_rule():
    assert not parse_scene(minimal()).is_passive()
    assert parse_scene(minimal(intuitivePhysics=True)).is_passive()
    assert parse_scene(minimal(isometric=True)).is_passive()
    for category in ("agents", "intuitive physics", "passive"):
        assert parse_scene(minimal(goal={"category": category})).is_passive()
    assert not parse_scene(minimal(goal=None)).is_passive()


def test_goal_metadata_from_scene():
    scene = load_scene(DATA / "scenes" / "eval_7_interactive_imitation_0001_01.json")
    goal = scene.goal_metadata(steps_allowed_in_lava=4)
    assert goal.steps_allowed_in_lava == 4 and goal.category == "imitation"
    assert goal.triggered_by_target_sequence and goal.target_ids()
    end_steps = [step for step in range(len(goal.action_list) + goal.last_preview_phase_step)
                 if goal.hidden_params_at_step(step)]  # fmt: skip
    assert len(end_steps) == 1
    step = end_steps[0]
    assert ("EndHabituation", {}) in goal.retrieve_action_list_at_step(step)
    assert goal.hidden_params_at_step(step) == {"xPosition": 2.94, "zPosition": -6.6, "yRotation": 340.0}
    goal.metadata["changed"] = True
    assert "changed" not in scene.goal.metadata


def test_goal_metadata_without_goal():
    goal = parse_scene(minimal(goal=None)).goal_metadata(2)
    assert goal.steps_allowed_in_lava == 2 and goal.action_list is None
    assert goal.retrieve_action_list_at_step(0) == [(name, {}) for name in DEFAULT_ACTIONS]


def test_passive_scene_action_list():
    scene = load_scene(DATA / "scenes" / "eval_7_passive_agents_approach_0001_01.json")
    goal = scene.goal_metadata()
    assert scene.is_passive() and goal.habituation_total == 8
    assert goal.retrieve_action_list_at_step(0, is_passive=True) == [("Pass", {})]
    assert goal.retrieve_action_list_at_step(goal.last_step, is_passive=True) == []


# --- errors -----------------------------------------------------------------------------------------------


def write(tmp_path: Path, data, name: str = "scene.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_error_names_file_and_json_path(tmp_path):
    data = minimal()
    data["objects"] += [dict(data["objects"][0], id=f"o{i}") for i in (1, 2)]
    data["objects"][2]["shows"] = [{"position": {"x": "abc"}}]
    path = write(tmp_path, data)
    with pytest.raises(SceneError) as error:
        load_scene(path)
    assert str(error.value) == f"{path}: objects[2].shows[0].position.x: Input should be a valid number, got 'abc'"
    assert error.value.source == str(path) and isinstance(error.value, ValueError)


def test_invalid_json_names_line_and_column(tmp_path):
    path = write(tmp_path, '{\n  "name": "x",\n  "objects": [,]\n}')
    with pytest.raises(SceneError, match=r"scene\.json: line 3 column 15: invalid JSON"):
        load_scene_json_file(path)
    assert len(validate_scene_file(path)) == 1


def test_structure_checks():
    data = minimal()
    data["objects"].append(dict(data["objects"][0], shows=[]))
    data["objects"].append({"id": "other"})
    with pytest.raises(SceneError) as error:
        parse_scene(data, "made.json")
    lines = error.value.lines()
    assert "made.json: objects[2].type: Field required" in lines
    assert not any("objects[1].id" in line for line in lines)  # ids may repeat, as in MCS
    assert any(line.startswith("made.json: objects[1].shows: ") and "shows[0]" in line for line in lines)
    assert any(line.startswith("made.json: objects[2].shows: ") for line in lines)


def test_missing_name_and_non_object_scene():
    data = minimal()
    del data["name"]
    assert parse_scene(data).name == ""  # optional in MCS 0.7.4
    with pytest.raises(SceneError, match="must be a JSON object"):
        parse_scene([1, 2])  # type: ignore[arg-type]


def test_validate_scene_file_lists_every_problem(tmp_path):
    data = minimal(roomDimensions={"x": "wide"}, holes=[{"x": "a", "z": 0}])
    data["objects"][0]["shows"][0]["stepBegin"] = "later"
    data["objects"][0]["moves"] = [{"stepBegin": 1, "vector": {"y": "up"}}]
    data["goal"]["action_list"] = [["Pass", "RotateLook,rotation="]]
    data["goal"]["last_step"] = "never"
    path = write(tmp_path, data)
    lines = validate_scene_file(path)
    assert sorted(line.split(": ")[1] for line in lines) == sorted(
        ["roomDimensions.x", "objects[0].shows[0].stepBegin", "objects[0].moves[0].vector.y",
         "goal.action_list[0][1]", "goal.last_step", "holes[0].x"]
    )  # fmt: skip
    assert all(line.startswith(f"{path}: ") for line in lines)
    assert any("malformed action string 'RotateLook,rotation='" in line for line in lines)
    missing = tmp_path / "missing.json"
    assert validate_scene_file(missing)[0].startswith(f"{missing}: cannot read file")


def test_scene_is_a_pydantic_model_with_aliases_for_dumping():
    scene = parse_scene(minimal())
    dumped = scene.model_dump(by_alias=True, exclude_none=True)
    assert dumped["roomDimensions"] == {"x": 10.0, "y": 3.0, "z": 10.0}
    assert dumped["objects"][0]["shows"][0]["stepBegin"] == 0
    assert isinstance(Scene.model_validate(dumped), Scene)
