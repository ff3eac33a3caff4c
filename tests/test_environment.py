"""MCSEnvironment: the same observations inline and in a host child; caller errors pass through unchanged."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from mcs_plugin import MCSEnvironment, SimulatorError, SimulatorGaveUp
from mcs_plugin.mcs import SceneError, StepMetadata
from tests.sim_scenes import DATA, ball, scene

SAMPLE = DATA / "scenes" / "retrieval_goal_example_with_soccer_ball.json"
ACTIONS = [("MoveAhead", {}), ("RotateLeft", {}), ("LookDown", {}), ("MoveAhead", {}), ("RotateRight", {}),
           ("LookDown", {}), ("PickupObject", {"objectImageCoordsX": 32, "objectImageCoordsY": 40}),
           ("MoveAhead", {"amount": 0.5}), ("RotateRight", {})]


def assert_same_output(a: StepMetadata, b: StepMetadata) -> None:
    """Equal images, depth maps, masks and every metadata field."""
    assert len(a.image_list) == len(b.image_list) and len(a.object_mask_list) == len(b.object_mask_list)
    for x, y in zip(a.image_list + a.object_mask_list, b.image_list + b.object_mask_list):
        assert x.mode == y.mode and x.size == y.size
        assert np.array_equal(np.asarray(x), np.asarray(y))
    assert len(a.depth_map_list) == len(b.depth_map_list)
    for x, y in zip(a.depth_map_list, b.depth_map_list):
        assert x.dtype == y.dtype and np.array_equal(x, y)
    assert a.to_dict() == b.to_dict()
    assert a.action_list == b.action_list and a.camera_aspect_ratio == b.camera_aspect_ratio


def run_episode(env: MCSEnvironment, scene_spec, actions) -> list:
    outputs = [env.start_scene(scene_spec)]
    for action, params in actions:
        outputs.append(env.step(action, **params))
    return outputs


@pytest.mark.parametrize("metadata", ["oracle", "level2"])
def test_inline_and_subprocess_observations_are_identical(metadata):
    config = {"metadata": metadata, "width": 64, "height": 64, "seed": 3}
    with MCSEnvironment(config=config) as env:
        inline = run_episode(env, SAMPLE, ACTIONS)
        assert env.pid is None
    with MCSEnvironment(config=config, process="subprocess") as env:
        assert env.pid is not None and env.pid != os.getpid()
        hosted = run_episode(env, SAMPLE, ACTIONS)
        assert env.restarts == 0
    assert all(isinstance(o, StepMetadata) for o in hosted)
    assert hosted[0].image_list[0].size == (64, 64) and hosted[0].depth_map_list[0].dtype == np.float32
    for a, b in zip(inline, hosted):
        assert_same_output(a, b)
    if metadata == "oracle":
        assert any(o.return_status != "SUCCESSFUL" or o.object_list for o in hosted)


@pytest.fixture(scope="module")
def hosted_env():
    env = MCSEnvironment(config={"metadata": "oracle", "render": False}, process="subprocess", step_timeout=20)
    yield env
    env.close()


@pytest.mark.parametrize("process", ["inline", "subprocess"])
def test_value_errors_pass_through_unchanged_and_cost_no_restart(process, hosted_env):
    env = hosted_env if process == "subprocess" else MCSEnvironment(config={"render": False})
    pid = env.pid
    env.start_scene(scene(ball(z=1.5)))
    with pytest.raises(ValueError, match="unknown action") as info:
        env.step("Fly")
    assert type(info.value) is ValueError
    with pytest.raises(ValueError):
        env.step("MoveAhead", amount="lots")
    with pytest.raises(SceneError, match="roomDimensions") as info:  # the backend's own ValueError subclass
        env.start_scene(scene(roomDimensions={"x": "wide", "y": 3, "z": 10}))
    assert type(info.value) is SceneError
    env.start_scene(scene(ball(z=1.5)))
    assert env.step("MoveAhead").position["z"] == pytest.approx(0.1)
    assert env.restarts == 0 and env.pid == pid


def test_scene_state_last_output_and_last_step(hosted_env):
    env = hosted_env
    with pytest.raises(RuntimeError, match="start_scene"):
        MCSEnvironment(config={"render": False}).step("MoveAhead")
    data = scene(ball(z=1.5), name="short", goal={"category": "retrieval", "last_step": 2,
                                                    "metadata": {"target": {"id": "ball"}}})
    first = env.start_scene(data)
    assert env.scene is data and env.last_output is first and first.step_number == 0
    assert env.step("MoveAhead").step_number == 1
    second = env.step("MoveAhead")
    assert env.step("MoveAhead") is None  # past last_step, as MCS does
    assert env.last_output is second
    assert isinstance(env.end_scene(), dict)
    with pytest.raises(RuntimeError, match="start_scene"):
        env.step("MoveAhead")
    env.start_scene(str(SAMPLE))
    assert env.scene["name"] and isinstance(env.scene, dict)
    assert env.step("EndScene") is None
    with pytest.raises(RuntimeError):
        env.end_scene()


def test_close_and_context_manager_end_the_child():
    with MCSEnvironment(config={"render": False}, process="subprocess") as env:
        pid = env.pid
        assert os.path.exists(f"/proc/{pid}")
    assert not os.path.exists(f"/proc/{pid}")
    env.close()  # idempotent
    env = MCSEnvironment(config={"render": False}, process="subprocess")
    pid = env.pid
    env.close()
    assert not os.path.exists(f"/proc/{pid}")


@pytest.mark.parametrize("backend,process", [("embedded", "inline"), ("embedded", "subprocess"), ("unity", "")])
def test_end_scene_returns_one_shape_on_every_backend(backend, process, tmp_path):
    """{choice, confidence, answer, correct, steps}, whether the embedded simulator or MCS's controller ran."""
    from tests.test_unity_adapter import QUIRKY_CONTROLLER

    passive = scene(goal={"category": "intuitive physics", "answer": {"choice": "plausible"}, "last_step": 5})
    if backend == "unity":  # MCS's controller surface (rating/score end_scene), hosted in a child
        factory = tmp_path / "quirky_factory.py"
        factory.write_text(QUIRKY_CONTROLLER)
        env = MCSEnvironment("unity", {"last_step": 5}, python_executable=sys.executable,
                             controller_factory=f"{factory}:make")
    else:
        env = MCSEnvironment(config={"render": False}, process=process)
    with env:
        env.start_scene(passive)
        env.step("Pass")
        env.step("Pass")
        assert env.end_scene("implausible", 0.25) == {"choice": "implausible", "confidence": 0.25,
                                                      "answer": "plausible", "correct": False, "steps": 2}
        env.start_scene(scene())  # no answer: correct is unknown
        assert env.end_scene() == {"choice": None, "confidence": 1.0, "answer": None, "correct": None, "steps": 0}


def test_bad_arguments_and_unavailable_backend_fail_fast():
    with pytest.raises(ValueError):
        MCSEnvironment(backend="gazebo")
    with pytest.raises(ValueError):
        MCSEnvironment(process="thread")
    with pytest.raises(ValueError, match="tier"):  # a bad config is the caller's mistake in a child too
        MCSEnvironment(config={"metadata": "everything"}, process="subprocess")
    from mcs_plugin import SimulatorUnavailable

    with pytest.raises(SimulatorUnavailable, match="cannot run"):
        MCSEnvironment(process="subprocess", python_executable="/nonexistent/python")
    assert issubclass(SimulatorGaveUp, SimulatorError) and issubclass(SimulatorUnavailable, SimulatorError)


def test_package_import_stays_light():
    code = ("import sys, mcs_plugin; assert 'mcs_plugin.environment' not in sys.modules; "
            "assert 'mcs_plugin.sim.controller' not in sys.modules; "
            "from mcs_plugin import MCSEnvironment, SimulatorGaveUp; assert 'mujoco' not in sys.modules; print('ok')")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "ok", result.stderr
