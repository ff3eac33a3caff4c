"""Bad input at the boundary: scenes, action parameters and configs give clean errors naming the field, and a
rejected action changes nothing."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from mcs_plugin import MCSEnvironment
from mcs_plugin.mcs import SceneError, load_config, load_scene, parse_scene
from mcs_plugin.mcs.limits import MAX_IMAGE_SIZE
from mcs_plugin.sim.controller import EmbeddedController
from mcs_plugin.sim.world import PhysicsError
from tests.sim_scenes import ball, chest, scene

DATA = Path(__file__).parent / "data"


def _scene_with(path: tuple, value) -> dict:
    data = scene(ball(), chest(x=2.0), goal={"category": "retrieval", "metadata": {"target": {"id": "ball"}}})
    node = data
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return data


@pytest.mark.parametrize("path, value, where", [
    (("objects", 0, "shows", 0, "position", "x"), math.nan, "objects[0].shows[0].position.x: Input should be a finite"),
    (("objects", 0, "shows", 0, "position", "y"), -math.inf, "objects[0].shows[0].position.y: Input should be a finite"),
    (("objects", 0, "shows", 0, "position", "x"), 1e6, "objects[0].shows[0].position.x: Input should be less than"),
    (("objects", 0, "shows", 0, "position", "x"), 20.0, "objects[0].shows[0].position: (20.0, 1.14) lies off the floor"),
    (("objects", 0, "shows", 0, "position", "y"), -5.0, "objects[0].shows[0].position.y: -5.0 is more than 1.0 m"),
    (("objects", 0, "shows", 0, "scale"), 1e9, "objects[0].shows[0].scale.x: Input should be less than or equal"),
    (("objects", 0, "shows", 0, "scale"), {"x": 0, "y": 1, "z": 1}, "objects[0].shows[0].scale.x: Input should be greater"),
    (("objects", 0, "mass"), 1e30, "objects[0].mass: Input should be less than or equal to 100000"),
    (("objects", 0, "type"), "no_such_thing", "objects[0].type: unknown MCS object type 'no_such_thing'"),
    (("objects", 1), {"id": "tool", "type": "tool_rect_1_00_x_9_00", "shows": [{"scale": {"x": 1, "y": 1, "z": 20}}]},
     "objects[1].shows[0].scale: makes tool_rect_1_00_x_9_00 180 m long (at most 100.0)"),
    (("objects", 0, "forces"), [{"vector": {"x": 1e30}}], "objects[0].forces[0].vector.x: Input should be less than"),
    (("roomDimensions", "x"), 1e12, "roomDimensions.x: Input should be less than or equal to 100"),
    (("performerStart", "position", "x"), -math.inf, "performerStart.position.x: Input should be a finite"),
    (("performerStart", "position", "z"), 30.0, "performerStart.position: (0.0, 30.0) lies outside the room"),
    (("goal", "category"), "cooking", "goal.category: unknown goal category 'cooking'"),
    (("goal", "metadata", "target", "size"), math.nan, "goal.metadata: non-finite number at .target.size"),
    (("goal", "action_list"), [["\x00"]], "goal.action_list[0][0]: unknown action '\\x00'"),
    (("goal", "action_list"), [["EndHabituation,xPosition=1e9"]], "goal.action_list[0][0]: parameter "
                                                                   "xPosition=1000000000.0 is out of range"),
])  # fmt: skip
def test_bad_scene_values_name_the_file_and_json_path(tmp_path, path, value, where):
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(_scene_with(path, value)))
    with pytest.raises(SceneError) as error:
        load_scene(file)
    assert any(line.startswith(f"{file}: {where}") for line in error.value.lines()), error.value.lines()


def test_valid_extremes_and_repeated_ids_load():
    data = _scene_with(("objects", 0, "mass"), 9e4)
    data["objects"].append(dict(ball(x=1.0), id="ball"))  # a swapped-in object under the same id, as in Eval-7
    data["roomDimensions"] = {"x": 100, "y": 3, "z": 100}
    assert len(parse_scene(data).objects) == 3


def test_non_utf8_scene_names_the_file(tmp_path):
    file = tmp_path / "latin1.json"
    file.write_bytes(json.dumps(scene(name="caf\u00e9"), ensure_ascii=False).encode("latin-1"))
    with pytest.raises(SceneError, match=r"latin1\.json: byte \d+: not UTF-8 text"):
        load_scene(file)


# -- actions ---------------------------------------------------------------------------------------------
BAD_ACTIONS = [
    ("PickupObject", {"objectDirectionX": 1e308}, "objectDirectionX=1e+308 is out of range"),
    ("PickupObject", {"objectDirectionX": math.inf}, "objectDirectionX=inf must be a finite number"),
    ("PickupObject", {"objectDirectionX": "abc"}, "objectDirectionX='abc' must be a number"),
    ("PickupObject", {"objectDirectionX": [1]}, "objectDirectionX=[1] must be a number, a string or a boolean"),
    ("PickupObject", {"objectDirectionX": 0, "objectDirectionZ": 0}, "must not be the zero vector"),
    ("PickupObject", {"objectImageCoordsX": math.inf, "objectImageCoordsY": 1}, "objectImageCoordsX=inf must be a"),
    ("PickupObject", {"objectImageCoordsX": 10, "objectImageCoordsY": 400}, "objectImageCoordsY=400 is outside"),
    ("PushObject", {}, "PushObject needs objectId, objectImageCoordsX/Y or objectDirectionX/Y/Z"),
    ("PutObject", {"objectId": "ball"}, "PutObject needs receptacleObjectId"),
    ("PushObject", {"objectId": "ball", "force": math.nan}, "force=nan must be a finite number"),
    ("MoveObject", {"objectId": "ball", "lateral": 0.5}, "lateral=0.5 must be -1, 0 or 1"),
    ("EndHabituation", {"xPosition": 1e9}, "xPosition=1000000000.0 is out of range"),
    ("RotateObject", {"objectId": "ball", "clockwise": "maybe"}, "clockwise='maybe' must be true or false"),
]  # fmt: skip


@pytest.fixture
def running():
    controller = EmbeddedController({"metadata": "oracle", "render": False, "width": 600, "height": 400})
    controller.start_scene(scene(ball(z=0.8)))
    yield controller
    controller.stop_simulation()


@pytest.mark.parametrize("action, params, message", BAD_ACTIONS)
def test_a_rejected_action_names_the_parameter_and_changes_nothing(running, action, params, message):
    performer = running.performer
    before = (running.step_number, performer.x, performer.z, performer.yaw, running.world.data.qpos.tobytes())
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(").replace("+", r"\+")):
        running.step(action, **params)
    after = (running.step_number, performer.x, performer.z, performer.yaw, running.world.data.qpos.tobytes())
    assert after == before
    assert running.step("Pass").step_number == before[0] + 1


def test_an_inline_environment_survives_a_huge_direction_without_restarting():
    with MCSEnvironment(config={"metadata": "oracle", "render": False}) as env:
        env.start_scene(scene(ball(z=0.8)))
        with pytest.raises(ValueError, match="objectDirectionX"):
            env.step("PickupObject", objectDirectionX=1e308)
        assert env.restarts == 0
        assert env.step("PickupObject", objectDirectionZ=1.0, objectDirectionY=-1.0).step_number == 1


def test_objects_crowded_at_one_spot_raise_a_physics_error():
    controller = EmbeddedController({"metadata": "oracle", "render": False})
    with pytest.raises(PhysicsError, match="the physics cannot go on"):
        controller.start_scene(scene(*[chest(f"c{i}", physics=True) for i in range(20)]))
    assert controller.ended
    controller.start_scene(scene(ball()))  # the controller itself stays usable


# -- configs ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("config, message", [
    ({"width": 1e9}, f"config width: image size 1000000000 must be 1 to {MAX_IMAGE_SIZE} pixels"),
    ({"size": 20000}, "config size: image size 20000 must be 1 to"),
    ({"size": 1}, "config size: image size 0 must be 1 to"),
    ({"width": 0, "height": 10}, "config width: image size 0"),
    ({"Width": True}, "config key 'width': not a number: True"),
    ({"goal_reward": math.nan}, "config key 'goal_reward': nan is not a finite number"),
    ({"step_penalty": "inf"}, "config key 'step_penalty': 'inf' is not a finite number"),
    ({"metadata": "everything"}, "config key 'metadata': unknown metadata tier 'everything'"),
    ({"seed": [1]}, "config key 'seed': not a number"),
    ({"steps_allowed_in_lava": -1}, "config steps_allowed_in_lava must be >= 0"),
    (5, "config must be a dict, an INI file path or an MCSConfig, got int"),
])  # fmt: skip
def test_bad_configs_name_the_key(config, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        load_config(config)


def test_non_utf8_ini_names_the_file(tmp_path):
    path = tmp_path / "bad.ini"
    path.write_bytes(b"[MCS]\nteam = caf\xe9\n")
    with pytest.raises(ValueError, match=r"bad\.ini: byte \d+: not UTF-8 text"):
        load_config(path)


def test_a_repeated_id_swaps_one_object_for_another_as_in_eval7():
    """Eval-7 shape constancy: a truck (shown at step 81, hidden at 117) and a taxi (shown at 117) share one id."""
    controller = EmbeddedController({"metadata": "oracle", "render": False})
    output = controller.start_scene(DATA / "eval7" / "eval_7_passive_physics_shape_constancy_0001_03.json")
    shapes = {}
    while output is not None and output.step_number < 120:
        output = controller.step("Pass")
        shapes[output.step_number] = [o.shape for o in output.object_list if o.uuid.startswith("ae903bd3")]
    assert shapes[100] == ["truck"] and shapes[120] == ["taxi"]
