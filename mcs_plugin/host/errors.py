"""Errors raised when a simulator backend cannot answer: what samplers and tasks catch."""

from __future__ import annotations


class SimulatorError(RuntimeError):
    """Base class: the simulator backend failed (not a caller mistake; those raise ValueError)."""


class SimulatorUnavailable(SimulatorError):
    """The backend cannot run here at all (library missing, no X display, no Unity app); retrying will not help."""


class SimulatorCrashed(SimulatorError):
    """The backend process died, its pipe broke, or the backend raised an unexpected exception."""

    def __init__(self, message: str, log_tail: str = "") -> None:
        super().__init__(message + (f"\n--- simulator process output (last lines) ---\n{log_tail}" if log_tail else ""))
        self.log_tail = log_tail


class SimulatorTimeout(SimulatorError):
    """The backend did not start within `start_timeout`, or a call did not return within `step_timeout`."""

    def __init__(self, message: str, timeout: float | None = None) -> None:
        super().__init__(message)
        self.timeout = timeout


class SimulatorGaveUp(SimulatorError):
    """The backend failed more than `max_restarts` times in one episode: skip this scene.

    `max_restarts` is the limit that was exceeded and `last_error` (also `__cause__`) the final failure.
    The environment stays usable: the next `start_scene` starts a fresh backend.
    """

    def __init__(self, max_restarts: int, last_error: BaseException | None = None, scene_name: str | None = None):
        where = f" in scene {scene_name!r}" if scene_name else ""
        super().__init__(f"simulator failed {max_restarts + 1} times{where} (max_restarts={max_restarts}); "
                         f"last error: {type(last_error).__name__ if last_error else None}: {last_error}")
        self.max_restarts = max_restarts
        self.last_error = last_error
        self.scene_name = scene_name

    def __reduce__(self):
        return (type(self), (self.max_restarts, self.last_error, self.scene_name))


class SceneLost(SimulatorError):
    """The backend is alive but dropped the running scene (MCS's inactivity watchdog ended it): replay it."""


__all__ = ["SceneLost", "SimulatorCrashed", "SimulatorError", "SimulatorGaveUp", "SimulatorTimeout",
           "SimulatorUnavailable"]
