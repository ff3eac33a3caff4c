"""Run one fuzz case in this process and classify every outcome in it: ok, clean, foreign or bad_state."""

from __future__ import annotations

import os
import tempfile
import warnings
from typing import Any

import numpy as np

from mcs_plugin.environment import MCSEnvironment
from mcs_plugin.sim.controller import EmbeddedController
from mcs_plugin.sim.world import PhysicsError
from tests.fuzz.cases import DATA, load_seed
from tests.fuzz.outcome import bad_state, is_clean_error

STEPS_AFTER_START = 5  # legal actions run on a mutated scene that loaded
# Legal actions tried on a scene whose goal restricts nothing; object actions aim at the image centre.
PROBE_ACTIONS = ("MoveAhead", "RotateRight", "PickupObject", "LookDown", "PushObject", "Pass")
OBJECT_ACTIONS = frozenset({"PickupObject", "PushObject", "PullObject", "TorqueObject", "RotateObject", "MoveObject",
                            "OpenObject", "CloseObject", "InteractWithAgent"})
Result = tuple[str, str]  # (category, detail)


def _classify(error: BaseException, where: str) -> Result:
    if is_clean_error(error):
        return "clean", f"{where}: {str(error).splitlines()[0][:160]}"
    return "foreign", f"{where}: {type(error).__name__}: {str(error)[:300]}"


def _legal_action(output: Any, turn: int) -> tuple[str, dict] | None:
    """An action the output's action list allows (None when only EndScene or nothing is left)."""
    allowed = [(name, params) for name, params in output.action_list if name != "EndScene"]
    if not allowed:
        return None
    names = {name for name, _ in allowed}
    for name in PROBE_ACTIONS[turn % len(PROBE_ACTIONS):] + PROBE_ACTIONS:
        if name in names and not dict(allowed)[name]:
            return _aimed(name, {}, output)
    name, params = allowed[turn % len(allowed)]
    return _aimed(name, dict(params), output)


def _aimed(name: str, params: dict, output: Any) -> tuple[str, dict]:
    if name in OBJECT_ACTIONS and not params:
        width, height = output.camera_aspect_ratio
        params = {"objectImageCoordsX": width // 2, "objectImageCoordsY": height // 2}
    if name == "PutObject" and not params:
        width, height = output.camera_aspect_ratio
        params = {"receptacleObjectImageCoordsX": width // 2, "receptacleObjectImageCoordsY": height // 2}
    return name, params


def run_scene(case: dict) -> list[Result]:
    """Load a mutated scene; if it loads, run a few legal actions and check every output."""
    controller = EmbeddedController({"metadata": "oracle", "render": case.get("render", False), "width": 32,
                                     "height": 32})
    path = None
    try:
        if "raw" in case:
            handle, path = tempfile.mkstemp(suffix=".json")
            with os.fdopen(handle, "wb") as out:
                out.write(case["raw"])
        try:
            output = controller.start_scene(path or case["scene"])
        except Exception as error:  # noqa: BLE001 - classified
            return [_classify(error, "start_scene")]
        problem = bad_state(controller, output)
        if problem:
            return [("bad_state", f"start_scene: {problem}")]
        for turn in range(STEPS_AFTER_START):
            action = _legal_action(output, turn)
            if action is None:
                break
            try:
                output = controller.step(action[0], **action[1])
            except PhysicsError as error:  # the scene's objects overlap so much that the physics gives up
                return [_classify(error, f"step {action}")]
            except Exception as error:  # noqa: BLE001 - any other error on a legal action is a failure
                category, detail = _classify(error, f"step {action}")
                return [("foreign", detail) if category == "clean" else (category, detail)]
            if output is None:
                break
            problem = bad_state(controller, output)
            if problem:
                return [("bad_state", f"step {action[0]}: {problem}")]
        return [("ok", "")]
    finally:
        controller.stop_simulation()
        if path:
            os.unlink(path)


def _snapshot(controller: EmbeddedController) -> tuple:
    """What a rejected action must leave unchanged."""
    performer = controller.performer
    return (controller.step_number, controller.ended, performer.x, performer.z, performer.yaw, performer.tilt,
            performer.pose, len(controller._runner.held), controller.world.data.qpos.tobytes())


def run_actions(case: dict) -> list[Result]:
    """An episode of fuzzed actions on a real scene: one result per action."""
    scene = load_seed(DATA / "scenes" / case["seed"])
    config = {"metadata": "oracle", "render": case.get("render", False), "width": 48, "height": 32}
    if case.get("environment"):
        return _run_actions_in_environment(case, scene, config)
    controller = EmbeddedController(config)
    results: list[Result] = []
    try:
        output = controller.start_scene(scene)
        for action, params in case["actions"]:
            if controller.ended:
                output = controller.start_scene(scene)
            before = _snapshot(controller)
            try:
                output = controller.step(action, **params) or output
            except Exception as error:  # noqa: BLE001 - classified
                result = _classify(error, f"step {action!r} {params}")
                if result[0] == "clean" and _snapshot(controller) != before:
                    result = ("bad_state", f"rejected action changed the state: {result[1]}")
                results.append(result)
                continue
            problem = None if controller.ended else bad_state(controller, output)
            results.append(("bad_state", f"step {action!r} {params}: {problem}") if problem else ("ok", ""))
    finally:
        controller.stop_simulation()
    return results


def _run_actions_in_environment(case: dict, scene: dict, config: dict) -> list[Result]:
    """The same episode through an inline MCSEnvironment: bad input must never cost a restart."""
    results: list[Result] = []
    with MCSEnvironment(config=config) as env:
        env.start_scene(scene)
        for action, params in case["actions"]:
            try:
                env.step(action, **params)
                results.append(("ok", ""))
            except Exception as error:  # noqa: BLE001 - classified
                results.append(_classify(error, f"environment step {action!r} {params}"))
            if env.restarts:
                results[-1] = ("foreign", f"environment restarted after {action!r} {params}: {results[-1][1]}")
                break
            if not env._scene_active:
                env.start_scene(scene)
    return results


def run_config(case: dict) -> list[Result]:
    """Create a controller from a fuzzed config and run a small scene's first step with it."""
    config, path = case.get("config"), None
    if "ini" in case:
        handle, path = tempfile.mkstemp(suffix=".ini")
        with os.fdopen(handle, "wb") as out:
            out.write(case["ini"])
        config = path
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            controller = EmbeddedController(config)
    except Exception as error:  # noqa: BLE001 - classified
        return [_classify(error, "config")]
    finally:
        if path:
            os.unlink(path)
    try:
        output = controller.start_scene(DATA / "scenes" / "retrieval_goal_example_with_soccer_ball.json")
        output = controller.step("RotateRight")
        problem = bad_state(controller, output)
        if not problem and output.image_list:
            shape = np.asarray(output.image_list[0]).shape[:2]
            if shape != (controller.height, controller.width):
                problem = f"image shape {shape} is not {controller.height} x {controller.width}"
        return [("bad_state", f"config {config}: {problem}")] if problem else [("ok", "")]
    except Exception as error:  # noqa: BLE001 - a config that was accepted must run
        category, detail = _classify(error, f"config {config} accepted, then")
        return [("foreign", detail) if category == "clean" else (category, detail)]
    finally:
        controller.stop_simulation()


RUNNERS = {"scene": run_scene, "actions": run_actions, "config": run_config}


def run_case(case: dict) -> list[Result]:
    """Run one case of any kind."""
    return RUNNERS[case["kind"]](case)
