"""TEST-ONLY fault injection inside a host child, so tests can prove that the environment recovers.

Never set these in real runs. A fault spec is a dict (config key ``"_fault"`` of MCSEnvironment, stripped
before the backend sees the config; or ``MCSEnvironment._inject_fault(...)`` at run time):

- ``kill_at_step: N``   the child SIGKILLs itself when the N-th step call (counted from when the fault was armed,
  replayed steps included) arrives.
- ``exit_at_step: N``   the child exits at once (its pipe closes: "broken pipe").
- ``hang_at_step: N``   the N-th step never returns (the parent's step_timeout fires).
- ``raise_at_step: N``  the N-th step raises RuntimeError inside the backend.
- ``slow_start: S``     the child sleeps S seconds before creating its backend (start_timeout fires).
- ``helper_process: true``  the child starts a sleeping helper process in its group at start (stands in for
  Unity and its helpers, to check that the whole group dies).
- ``launches: [0]``     (config key only) which launches of the environment's child get the faults: 0 is the
  first child, 1 the first restart, ...; default [0], "all" for every launch.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from typing import Any

STEP_FAULTS = ("kill_at_step", "exit_at_step", "hang_at_step", "raise_at_step")
START_FAULTS = ("slow_start", "helper_process")
KNOWN = frozenset(STEP_FAULTS + START_FAULTS + ("launches",))


class InjectedFault(RuntimeError):
    """The exception a `raise_at_step` fault raises inside the backend."""


def validate(spec: dict[str, Any] | None) -> dict[str, Any]:
    """A copy of a fault spec; ValueError for unknown keys (a typo must not silently test nothing)."""
    spec = dict(spec or {})
    unknown = set(spec) - KNOWN
    if unknown:
        raise ValueError(f"unknown fault keys {sorted(unknown)}; known: {sorted(KNOWN)}")
    return spec


def applies_to_launch(spec: dict[str, Any], launch: int) -> bool:
    """Whether a config fault spec is meant for the child of launch number `launch`."""
    launches = spec.get("launches", [0])
    return launches == "all" or launch in launches


class Faults:
    """The faults armed in one child process, with the step counter they refer to."""

    def __init__(self) -> None:
        self.steps = 0
        self.armed: dict[str, int] = {}
        self.helper_pids: list[int] = []

    def arm(self, spec: dict[str, Any] | None) -> None:
        """Arm the step faults of `spec`, counted from now."""
        for key in STEP_FAULTS:
            if spec and spec.get(key) is not None:
                self.armed[key] = self.steps + int(spec[key])

    def on_start(self, spec: dict[str, Any] | None) -> None:
        """Apply start faults (slow start, helper process) and arm the step faults."""
        spec = spec or {}
        if spec.get("helper_process"):
            helper = subprocess.Popen(["sleep", "3600"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)
            self.helper_pids.append(helper.pid)
        if spec.get("slow_start"):
            time.sleep(float(spec["slow_start"]))
        self.arm(spec)

    def before_step(self) -> None:
        """Count a step call and fire whichever fault is due."""
        self.steps += 1
        due = [key for key, at in self.armed.items() if at == self.steps]
        for key in due:
            del self.armed[key]
        if "kill_at_step" in due:
            os.kill(os.getpid(), signal.SIGKILL)
            time.sleep(60)
        if "exit_at_step" in due:
            os._exit(17)
        if "hang_at_step" in due:
            while True:
                time.sleep(3600)
        if "raise_at_step" in due:
            raise InjectedFault(f"injected fault: raise_at_step (step call {self.steps})")
