"""Fault injection for tests: a host child that misbehaves on purpose, and an environment that launches it.

A fault spec is a dict (`FaultyEnvironment(faults=...)`, or `FaultyEnvironment.inject_fault(...)` at run time):

- ``kill_at_step: N``   the child SIGKILLs itself when the N-th step call (counted from when the fault was armed,
  replayed steps included) arrives.
- ``exit_at_step: N``   the child exits at once (its pipe closes: "broken pipe").
- ``hang_at_step: N``   the N-th step never returns (the parent's step_timeout fires).
- ``raise_at_step: N``  the N-th step raises RuntimeError inside the backend.
- ``slow_start: S``     the child sleeps S seconds before creating its backend (start_timeout fires).
- ``helper_process: true``  the child starts a sleeping helper process in its group at start (stands in for
  Unity and its helpers, to check that the whole group dies).
- ``launches: [0]``     (constructor only) which launches of the environment's child get the faults: 0 is the
  first child, 1 the first restart, ...; default [0], "all" for every launch.

The child is this module run as the host child's entry point (`HostProcess(child=CHILD)`): it needs only the
standard library and the package, as the real child does. Its start faults travel in an environment variable.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from mcs_plugin.environment import MCSEnvironment
from mcs_plugin.host import child
from mcs_plugin.host.process import HostProcess

TESTS_DIR = str(Path(__file__).resolve().parent)
# The child imports this file by its own name from the tests folder: a `tests` package in the child's site-packages
# (the real-MCS venv has one) would shadow this repository's namespace package `tests`.
CHILD = "host_faults"
ENV_VAR = "MCS_PLUGIN_TEST_FAULTS"
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


def fault_host(backend: str, options: dict[str, Any], faults: dict[str, Any] | None,
               python_executable: str | None = None) -> HostProcess:
    """A host child (not yet started) that applies `faults` from its start."""
    env = {**os.environ, ENV_VAR: json.dumps(faults or {})}
    env["PYTHONPATH"] = os.pathsep.join([TESTS_DIR] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return HostProcess(backend, options, python_executable=python_executable, child=CHILD, env=env)


class FaultServer(child.Server):
    """The host child's serve loop with faults: start faults at init, step faults counted per step call."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        super().__init__(read_fd, write_fd)
        self.steps = 0
        self.armed: dict[str, int] = {}
        self.helper_pids: list[int] = []

    def arm(self, spec: dict[str, Any] | None) -> None:
        """Arm the step faults of `spec`, counted from now."""
        for key in STEP_FAULTS:
            if spec and spec.get(key) is not None:
                self.armed[key] = self.steps + int(spec[key])

    def on_start(self, spec: dict[str, Any]) -> None:
        """Apply start faults (slow start, helper process) and arm the step faults."""
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

    def handle(self, request: dict[str, Any]) -> tuple[Any, bool]:
        """The real child's handling, with the faults around it (`_fault` arms step faults)."""
        op = request["op"]
        if op == "init":
            self.on_start(json.loads(os.environ.get(ENV_VAR) or "{}"))
            value, stop = super().handle(request)
            return {**value, "helper_pids": self.helper_pids}, stop
        if op == "_fault":
            self.arm(request.get("spec"))
            return None, False
        if op == "step":
            self.before_step()
        return super().handle(request)


class FaultyEnvironment(MCSEnvironment):
    """An MCSEnvironment (subprocess only) whose children run `FaultServer` with the faults meant for them."""

    def __init__(self, *args: Any, faults: dict[str, Any] | None = None, **kwargs: Any) -> None:
        self.faults = validate(faults)
        self.launches = 0
        self.next_launch_faults: dict[str, Any] = {}
        super().__init__(*args, **kwargs)

    def _host_process(self, options: dict[str, Any]) -> HostProcess:
        launch, self.launches = self.launches, self.launches + 1
        launches = self.faults.get("launches", [0])
        faults = {k: v for k, v in self.faults.items() if k != "launches"} if (
            launches == "all" or launch in launches) else {}
        faults.update(self.next_launch_faults)
        self.next_launch_faults = {}
        return fault_host(self.backend, options, faults, self.python_executable)

    def inject_fault(self, **spec: Any) -> None:
        """Arm step faults in the running child now; start faults apply to the next launch."""
        spec = validate(spec)
        if self.process != "subprocess":
            raise RuntimeError("fault injection needs process='subprocess'")
        self.next_launch_faults.update({k: spec[k] for k in START_FAULTS if k in spec})
        steps = {k: spec[k] for k in STEP_FAULTS if k in spec}
        if steps:
            if self._handle is None:
                raise RuntimeError("no simulator process is running")
            self._handle.host.call("_fault", self.step_timeout, spec=steps)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the faulty host child."""
    child.main(argv, server_class=FaultServer)
