"""MCSEnvironment: one interface over the embedded and the real-MCS (Unity) backends, that survives their failures.

Tasks and samplers talk to this class only. It owns the backend: inline (the embedded simulator in this
process, the fast default) or in a host child process (any backend; always for Unity). When the backend
crashes, hangs past a timeout, breaks its pipe or raises, the environment kills it (the child's whole
process group), starts a fresh one, restarts the current scene, replays the actions taken so far and then
answers the pending call. More than `max_restarts` failures in one episode raise `SimulatorGaveUp`, which
samplers catch to skip the scene. A ValueError from the backend (bad action or parameters, a scene it
rejects) is the caller's mistake: it propagates unchanged and costs no restart.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from mcs_plugin.host import wire
from mcs_plugin.host.errors import (
    SceneLost, SimulatorCrashed, SimulatorError, SimulatorGaveUp, SimulatorTimeout, SimulatorUnavailable,
)
from mcs_plugin.host.process import HostProcess

if TYPE_CHECKING:  # pragma: no cover
    from mcs_plugin.mcs import Scene

logger = logging.getLogger(__name__)

BACKENDS = ("embedded", "unity")
PROCESSES = ("inline", "subprocess")
# (start_timeout, step_timeout) in seconds. Unity: MCS's own controller_timeout default is 600 s, and the
# first launch of a 0.4.4+ app loads Addressables from the network.
DEFAULT_TIMEOUTS: dict[str, tuple[float, float]] = {"embedded": (60.0, 30.0), "unity": (600.0, 180.0)}
DEFAULT_MAX_RESTARTS = 3
UNITY_PYTHON_ENV_VAR = "MCS_PLUGIN_UNITY_PYTHON"

__all__ = ["MCSEnvironment", "SimulatorCrashed", "SimulatorError", "SimulatorGaveUp", "SimulatorTimeout",
           "SimulatorUnavailable"]


def _action_name(action: Any) -> str:
    return str(getattr(action, "value", action))


class _InlineHandle:
    """The embedded simulator in this process."""

    pid = None

    def __init__(self, config: Any) -> None:
        from mcs_plugin.sim.controller import EmbeddedController

        self.controller = EmbeddedController(config)

    def start_scene(self, scene: dict | Scene):
        return self.controller.start_scene(scene)

    def step(self, action: str, params: dict):
        return self.controller.step(action, **params)

    def end_scene(self, choice: Any, confidence: Any):
        return self.controller.end_scene(choice, confidence)

    def close(self) -> None:
        self.controller.stop_simulation()

    kill = close


class _SubprocessHandle:
    """A backend in a host child process."""

    def __init__(self, host: HostProcess, step_timeout: float | None) -> None:
        self.host = host
        self.step_timeout = step_timeout

    @property
    def pid(self) -> int | None:
        return self.host.pid

    def start_scene(self, scene: dict):
        return wire.decode_step_metadata(self.host.call("start_scene", self.step_timeout, scene=scene))

    def step(self, action: str, params: dict):
        value = self.host.call("step", self.step_timeout, what=f"step {action}", action=action,
                               params=wire.plain(params))
        return None if value is None else wire.decode_step_metadata(value)

    def end_scene(self, choice: Any, confidence: Any):
        return self.host.call("end_scene", self.step_timeout, choice=wire.plain(choice),
                              confidence=wire.plain(confidence))

    def close(self) -> None:
        self.host.stop()

    def kill(self) -> None:
        self.host.kill()


class MCSEnvironment:
    """The MCS simulator for tasks and samplers: start_scene / step / end_scene over the chosen backend.

    Args:
        backend: "embedded" (this package's simulator) or "unity" (the real MCS app via machine_common_sense).
        config: MCS config: a dict, an INI path or None (MCS_CONFIG_FILE_PATH / defaults).
        process: "inline" (in this process; embedded only) or "subprocess" (a host child). "unity" always
            runs in a subprocess.
        unity_app_file_path: the MCS Unity executable (unity backend); None lets machine_common_sense find or
            download the app of its own version.
        start_timeout: seconds for a child to start and create its controller (None: 60 embedded, 600 unity).
        step_timeout: seconds for one start_scene / step / end_scene call (None: 30 embedded, 180 unity).
            Timeouts apply to subprocesses only.
        max_restarts: backend restarts allowed in one episode before SimulatorGaveUp.
        display: X display for Unity: None uses $DISPLAY or else a private Xvfb; ":N" a given display;
            "xvfb" always a private Xvfb.
        python_executable: the Python that runs the child (default: this one; for unity the environment
            variable MCS_PLUGIN_UNITY_PYTHON if set), e.g. a Python 3.10 venv with machine_common_sense 0.7.4.
        controller_factory: unity backend only: "module:function" or "path/file.py:function" called as
            function(config=..., unity_app_file_path=...) in the child instead of create_controller (for
            custom launch code, or tests/fake_ai2thor.py:create_controller to run without Unity).
    """

    def __init__(self, backend: str = "embedded", config: dict | str | os.PathLike | None = None,
                 process: str = "inline", unity_app_file_path: str | os.PathLike | None = None,
                 start_timeout: float | None = None, step_timeout: float | None = None,
                 max_restarts: int = DEFAULT_MAX_RESTARTS, display: str | None = None,
                 python_executable: str | None = None, controller_factory: str | None = None) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}; choose one of {BACKENDS}")
        if process not in PROCESSES:
            raise ValueError(f"unknown process mode {process!r}; choose one of {PROCESSES}")
        if backend == "unity":
            process = "subprocess"
        if max_restarts < 0:
            raise ValueError("max_restarts must be >= 0")
        self.backend = backend
        self.process = process
        self.max_restarts = int(max_restarts)
        default_start, default_step = DEFAULT_TIMEOUTS[backend]
        self.start_timeout = default_start if start_timeout is None else start_timeout
        self.step_timeout = default_step if step_timeout is None else step_timeout
        self.unity_app_file_path = None if unity_app_file_path is None else os.fspath(unity_app_file_path)
        self.display = display
        if python_executable is None and backend == "unity":
            python_executable = os.environ.get(UNITY_PYTHON_ENV_VAR) or None
        self.python_executable = python_executable or sys.executable
        self.controller_factory = controller_factory
        if isinstance(config, dict):
            config = dict(config)
        elif config is not None:
            config = os.path.abspath(os.fspath(config))  # the child may run elsewhere
        self.config = config
        self._handle: _InlineHandle | _SubprocessHandle | None = None
        self._scene: dict | None = None
        self._actions: list[tuple[str, dict]] = []
        self._scene_active = False
        self._synced = False
        self._episode_restarts = 0
        self.restarts = 0
        self.last_output = None
        self._run(lambda handle: None, "start")

    # -- public API ---------------------------------------------------------------------------------------
    @property
    def scene(self) -> dict | None:
        """The current scene, as a dict (as read from its JSON file)."""
        return self._scene

    @property
    def pid(self) -> int | None:
        """The pid of the current host child (its process-group id), or None inline / when none is running."""
        return getattr(self._handle, "pid", None)

    def start_scene(self, scene: dict | str | os.PathLike, parsed: Scene | None = None) -> Any:
        """Start a scene (dict or scene-JSON path); returns its first StepMetadata. Resets the restart budget.
        `parsed`: the dict already validated (`mcs_plugin.mcs.parse_scene`), which the embedded simulator in this
        process then takes instead of validating it again (training samplers start their scenes many times)."""
        if isinstance(scene, (str, os.PathLike)):
            from mcs_plugin.mcs import load_scene_json_file

            data = load_scene_json_file(scene)
            if isinstance(data, dict) and not data.get("name"):
                data["name"] = Path(scene).name.split(".")[0]
        elif isinstance(scene, dict):
            data = scene
        else:
            raise TypeError(f"scene must be a dict or a path, not {type(scene).__name__}")
        self._scene, self._actions = data, []
        self._scene_active = False
        self._episode_restarts = 0
        output = self._run(lambda handle: handle.start_scene(
            parsed if parsed is not None and isinstance(handle, _InlineHandle) else data), "start_scene")
        self._scene_active = True
        self._synced = True
        self.last_output = output
        return output

    def step(self, action: Any, **params: Any) -> Any:
        """Run one action; returns its StepMetadata, or None after the scene's last step (or for EndScene)."""
        if not self._scene_active:
            raise RuntimeError("no scene is running: call start_scene first")
        name = _action_name(action)
        output = self._run(lambda handle: handle.step(name, params), f"step {name}")
        if output is None:
            if name.split(",")[0].strip() == "EndScene":
                self._scene_active = False
            return None
        self._actions.append((name, dict(params)))
        self.last_output = output
        return output

    def end_scene(self, choice: Any = None, confidence: float = 1.0) -> dict[str, Any]:
        """End the scene with a choice (passive scenes) and a confidence. Returns, whatever the backend,
        {choice, confidence, answer (the scene's goal.answer.choice), correct (None if unknown), steps}."""
        from mcs_plugin.mcs.goal import end_scene_record

        if not self._scene_active:
            raise RuntimeError("no scene is running: call start_scene first")
        self._run(lambda handle: handle.end_scene(choice, confidence), "end_scene")
        self._scene_active = False
        answer = (self._scene.get("goal") or {}).get("answer")
        return end_scene_record(choice, confidence, answer, self.last_output.step_number)

    def close(self) -> None:
        """Shut the backend down (its whole process group for a subprocess). Idempotent; `with` calls it."""
        handle, self._handle = self._handle, None
        self._scene_active = False
        if handle is not None:
            try:
                handle.close()
            except Exception:  # noqa: BLE001 - stopping regardless
                try:
                    handle.kill()
                except Exception:  # noqa: BLE001
                    pass

    stop = close  # the earlier name, kept for code written against it

    def __enter__(self) -> MCSEnvironment:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            if self._handle is not None:
                self._handle.kill()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    # -- recovery -------------------------------------------------------------------------------------------
    def _run(self, fn: Callable[[Any], Any], what: str) -> Any:
        """Call fn(handle) on a ready backend, recovering from backend failures as the class doc says."""
        while True:
            try:
                handle = self._ready()
                return fn(handle)
            except (ValueError, SimulatorUnavailable):
                raise
            except SceneLost as error:  # the child is fine; only the scene must be replayed
                logger.warning("simulator lost the scene during %s (%s); replaying it", what, error)
                self._synced = False
                self._count_failure(error, what)
            except SimulatorError as error:
                self._fail(error, what)
            except Exception as error:  # noqa: BLE001 - inline backend bugs: same recovery as a crashed child
                if self.process != "inline":
                    raise
                self._fail(SimulatorCrashed(f"{type(error).__name__}: {error}").with_traceback(error.__traceback__),
                           what, cause=error)

    def _fail(self, error: BaseException, what: str, cause: BaseException | None = None) -> None:
        logger.warning("simulator failed during %s: %s", what, str(error).splitlines()[0] if str(error) else error)
        handle, self._handle = self._handle, None
        if handle is not None:
            try:
                handle.kill()
            except Exception:  # noqa: BLE001 - it is being replaced anyway
                pass
        self._synced = False
        self._count_failure(error, what, cause)

    def _count_failure(self, error: BaseException, what: str, cause: BaseException | None = None) -> None:
        self._episode_restarts += 1
        self.restarts += 1
        if self._episode_restarts > self.max_restarts:
            self._scene_active = False
            self._actions = []
            if self._handle is not None and not isinstance(error, SceneLost):
                self._handle.kill()
                self._handle = None
            name = self._scene.get("name") if isinstance(self._scene, dict) else None
            self._episode_restarts = 0
            raise SimulatorGaveUp(self.max_restarts, error, name) from (cause or error)

    def _ready(self) -> Any:
        """The backend handle, launched and synced to the running scene (replaying its actions) if needed."""
        if self._handle is None:
            self._handle = self._launch()
            self._synced = False
        if self._scene_active and not self._synced:
            self._replay(self._handle)
            self._synced = True
        return self._handle

    def _replay(self, handle: Any) -> None:
        logger.info("replaying scene %r and %d actions", self._scene.get("name"), len(self._actions))
        try:
            handle.start_scene(self._scene)
            for index, (name, params) in enumerate(self._actions):
                if handle.step(name, params) is None:
                    raise SimulatorCrashed(f"replay diverged: action {index + 1} ({name}) returned None")
        except ValueError as error:
            raise SimulatorCrashed(f"replay diverged: the backend rejected a recorded action: {error}") from error

    def _launch(self) -> Any:
        if self.process == "inline":
            return _InlineHandle(self.config)
        options: dict[str, Any] = {"config": self.config}
        if self.backend == "unity":
            options.update(unity_app_file_path=self.unity_app_file_path, display=self.display,
                           controller_factory=self.controller_factory)
        host = self._host_process(options)
        try:
            host.start(self.start_timeout)
        except BaseException:
            host.kill()
            raise
        return _SubprocessHandle(host, self.step_timeout)

    def _host_process(self, options: dict[str, Any]) -> HostProcess:
        """A new (not yet started) host child for this environment's backend."""
        return HostProcess(self.backend, options, python_executable=self.python_executable)
