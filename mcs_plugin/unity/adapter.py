"""The real-MCS backend: machine_common_sense's Controller (and its Unity app) behind the host's backend API.

Runs inside a host child, usually on a Python 3.10 venv (machine_common_sense 0.7.4 needs Python < 3.11 and
pydantic 1), so this module needs only the standard library, numpy and machine_common_sense itself.
Quirks handled here:

- controller creation: 0.4+ ``create_controller(config_file_or_dict, unity_app_file_path=...)`` and 0.3.x-style
  ``create_controller(unity_app_file_path, ...)`` / ``MCS.create_controller(path)``; a None result (the library
  logs the exception and returns None) becomes `UnityStartError` carrying the logged reason;
- ``step`` returns None after the goal's ``last_step``: passed through as None;
- ``step("EndScene")`` ends the scene then raises SystemExit(0): turned into a None result;
- the inactivity watchdog (config ``timeout``) ends the scene and calls ``_thread.interrupt_main()``: the
  KeyboardInterrupt (or the ended scene) becomes `SceneLost`, which makes the environment replay the scene.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import logging
import os
import sys
import tempfile
from typing import Any, Callable

from mcs_plugin.host.errors import SceneLost, SimulatorUnavailable

SETUP_HINT = ("machine_common_sense 0.7.4 needs Python < 3.11: create a venv with scripts/setup_unity_backend.sh "
              "and pass python_executable='.venv-mcs/bin/python' (or set MCS_PLUGIN_UNITY_PYTHON)")


class UnityStartError(RuntimeError):
    """machine_common_sense could not create its controller (create_controller returned None); says why."""


class _Collect(logging.Handler):
    """Collects the warnings and errors machine_common_sense logs while it creates a controller."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.reasons: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            text += f": {type(error).__name__}: {error}"
        self.reasons.append(text)


def import_mcs() -> Any:
    """The machine_common_sense module, or SimulatorUnavailable saying how to get it."""
    try:
        return importlib.import_module("machine_common_sense")
    except ImportError as error:
        raise SimulatorUnavailable(f"machine_common_sense is not importable by {sys.executable} "
                                   f"(Python {sys.version.split()[0]}): {error}. {SETUP_HINT}") from error


def _legacy_create_controller(mcs: Any) -> Callable[..., Any] | None:
    """MCS.create_controller of the 0.0.x-0.3.x API (class MCS in machine_common_sense or its .mcs module)."""
    legacy = getattr(mcs, "MCS", None)
    if legacy is None:
        try:
            legacy = getattr(importlib.import_module(mcs.__name__ + ".mcs"), "MCS", None)
        except ImportError:
            legacy = None
    return getattr(legacy, "create_controller", None)


def _legacy_kwargs(config: Any, params: dict[str, inspect.Parameter]) -> dict[str, Any]:
    """0.3.x create_controller keyword arguments from an MCS config dict or INI path."""
    kwargs: dict[str, Any] = {}
    if isinstance(config, (str, os.PathLike)):
        if "config_file_path" in params:
            kwargs["config_file_path"] = os.fspath(config)
        return kwargs
    config = dict(config or {})

    def flag(key: str) -> bool:
        return str(config.get(key, False)).strip().lower() in ("1", "true", "yes", "on")

    wanted = {"depth_maps": not flag("disable_depth_maps"), "depth_masks": not flag("disable_depth_maps"),
              "object_masks": not flag("disable_object_masks"), "enable_noise": flag("noise_enabled"),
              "history_enabled": str(config.get("history_enabled", True)).strip().lower() not in ("0", "false", "no",
                                                                                                  "off")}
    if "seed" in config:
        wanted["seed"] = config["seed"]
    kwargs.update({k: v for k, v in wanted.items() if k in params})
    if config and "config_file_path" in params:
        handle = tempfile.NamedTemporaryFile("w", suffix=".ini", prefix="mcs_config_", delete=False)
        with handle:
            handle.write("[MCS]\n" + "".join(f"{k} = {v}\n" for k, v in config.items()))
        kwargs["config_file_path"] = handle.name
    return kwargs


def create_mcs_controller(mcs: Any, config: Any = None, unity_app_file_path: str | None = None) -> Any:
    """Create an MCS controller with whichever create_controller this machine_common_sense version has.

    Raises UnityStartError (with the reason the library logged) when it returns None.
    """
    function = getattr(mcs, "create_controller", None) or _legacy_create_controller(mcs)
    if function is None:
        raise SimulatorUnavailable(f"{getattr(mcs, '__name__', mcs)} has no create_controller")
    params = dict(inspect.signature(function).parameters)
    collect = _Collect()
    library_logger = logging.getLogger(getattr(mcs, "__name__", "machine_common_sense"))
    library_logger.addHandler(collect)
    try:
        if "config_file_or_dict" in params:  # 0.4 and later
            controller = function(config if config is not None else {}, unity_app_file_path=unity_app_file_path)
        else:  # 0.3.x and older: the Unity app path comes first
            if unity_app_file_path is None:
                raise SimulatorUnavailable("this machine_common_sense version needs unity_app_file_path")
            controller = function(unity_app_file_path, **_legacy_kwargs(config, params))
    finally:
        library_logger.removeHandler(collect)
    if controller is None:
        reasons = "; ".join(collect.reasons) or "no reason was logged (see the simulator process output)"
        raise UnityStartError(f"machine_common_sense.create_controller returned None: {reasons}")
    return controller


def load_factory(spec: str) -> Callable[..., Any]:
    """The callable named by "package.module:function" or "path/to/file.py:function"."""
    module_name, _, attribute = spec.rpartition(":")
    if not module_name or not attribute:
        raise SimulatorUnavailable(f"controller_factory must look like 'module:function', not {spec!r}")
    if module_name.endswith(".py") or os.sep in module_name:
        loader_spec = importlib.util.spec_from_file_location(f"_mcs_factory_{abs(hash(module_name))}", module_name)
        if loader_spec is None or loader_spec.loader is None:
            raise SimulatorUnavailable(f"cannot load controller_factory file {module_name!r}")
        module = importlib.util.module_from_spec(loader_spec)
        loader_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(module_name)
    return getattr(module, attribute)


def rating_of(choice: Any) -> float | None:
    """MCS 0.7.4's end_scene rating (0..1) from our `choice` (number, bool, or plausible/implausible words)."""
    if choice is None:
        return None
    if isinstance(choice, (bool, int, float)):
        return float(choice)
    text = str(choice).strip().lower()
    words = {"plausible": 1.0, "expected": 1.0, "yes": 1.0, "true": 1.0,
             "implausible": 0.0, "unexpected": 0.0, "no": 0.0, "false": 0.0}
    if text in words:
        return words[text]
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"end_scene choice {choice!r} is not a rating: use a number in [0, 1] or "
                         f"plausible/implausible") from None


class UnityBackend:
    """machine_common_sense's controller (real Unity, or any controller_factory) as a host backend."""

    def __init__(self, config: Any = None, unity_app_file_path: str | None = None, display: str | None = None,
                 controller_factory: str | None = None) -> None:
        self.xdisplay = None
        self.info: dict[str, Any] = {"backend": "unity"}
        if controller_factory is None or display is not None:
            self._use_display(display)
        if controller_factory is not None:
            controller = load_factory(controller_factory)(config=config, unity_app_file_path=unity_app_file_path)
            if controller is None:
                raise UnityStartError(f"controller_factory {controller_factory!r} returned None")
        else:
            mcs = import_mcs()
            if unity_app_file_path is not None and not os.path.exists(unity_app_file_path):
                raise SimulatorUnavailable(f"Unity app not found: {unity_app_file_path}")
            controller = create_mcs_controller(mcs, config, unity_app_file_path)
        self.controller = controller
        mcs_module = sys.modules.get("machine_common_sense")
        self.info["mcs_version"] = getattr(mcs_module, "__version__", None)
        self._scene_running = False
        self._ended_by_us = True

    def _use_display(self, display: str | None) -> None:
        from mcs_plugin.host.display import DisplayUnavailable, resolve_display

        try:
            self.xdisplay = resolve_display(display)
        except DisplayUnavailable as error:
            raise SimulatorUnavailable(str(error)) from error
        os.environ["DISPLAY"] = self.xdisplay.name
        self.info["display"] = self.xdisplay.name

    def _check_scene(self) -> None:
        """SceneLost when MCS's inactivity watchdog has ended the running scene behind our back."""
        if self._scene_running and not self._ended_by_us and getattr(self.controller, "_end_scene_called", False):
            self._scene_running = False
            raise SceneLost("MCS's inactivity watchdog ended the scene (config 'timeout' passed with no step)")

    def _guard(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except KeyboardInterrupt as error:  # the watchdog's interrupt_main() landed inside the call
            self._scene_running = False
            raise SceneLost(f"MCS's inactivity watchdog interrupted the controller ({error!r})") from error

    def _reset_watchdog(self) -> None:
        """MCS 0.7.4 never resets the watchdog's step mark: once it has fired (or a scene outlived `timeout`), the
        next start_scene would end the new scene at once. Cancel the old timer and reset the mark."""
        timer = getattr(self.controller, "_timer", None)
        if timer is not None and hasattr(timer, "cancel"):
            timer.cancel()
        if hasattr(self.controller, "_last_step_check"):
            self.controller._last_step_check = -1
        if hasattr(self.controller, "_timer_in_progress"):
            self.controller._timer_in_progress = False

    def start_scene(self, scene: dict) -> Any:
        """Start a scene dict; returns MCS's StepMetadata."""
        self._reset_watchdog()
        output = self._guard(self.controller.start_scene, scene)
        self._scene_running, self._ended_by_us = True, False
        return output

    def step(self, action: str, params: dict) -> Any:
        """One action; MCS's StepMetadata, or None after last_step and for EndScene."""
        self._check_scene()
        try:
            return self._guard(self.controller.step, action, **params)
        except SystemExit as error:
            if str(action).split(",")[0].strip() == "EndScene":  # MCS ended the scene, then raised SystemExit(0)
                self._scene_running, self._ended_by_us = False, True
                return None
            raise RuntimeError(f"machine_common_sense raised SystemExit({error.code}) during {action}") from error

    def end_scene(self, choice: Any, confidence: Any) -> dict:
        """End the scene (0.7.4: rating/score; older: choice/confidence); returns what was sent."""
        self._check_scene()
        function = self.controller.end_scene
        params = inspect.signature(function).parameters
        if "rating" in params:
            rating = rating_of(choice)
            score = None if confidence is None else float(confidence)
            self._ended_by_us = True
            self._guard(function, rating=rating, score=score)
            sent = {"rating": rating, "score": score}
        else:
            self._ended_by_us = True
            self._guard(function, choice, confidence)
            sent = {"choice": choice, "confidence": confidence}
        self._scene_running = False
        return sent

    def stop(self) -> None:
        """Stop the controller (and its Unity process) and the private Xvfb, if any."""
        try:
            self.controller.stop_simulation()
        finally:
            if self.xdisplay is not None:
                self.xdisplay.stop()
