"""The host child: runs one backend controller and serves calls from the parent over a pipe.

Started by `HostProcess` as ``python -c "...; main(argv)" --read-fd R --write-fd W --parent-pid P``, in a new
session (its own process group). Needs only the standard library, numpy and this package on sys.path, so the
python may be another interpreter (e.g. a Python 3.10 venv with machine_common_sense).

Requests are dicts ``{"op": ..., **args}``; replies ``{"ok": True, "value": ...}`` or ``{"ok": False,
"kind": "value_error" | "error" | "unavailable" | "scene_lost", "type", "message", "traceback", "exception"}``.
"""

from __future__ import annotations

import argparse
import io
import os
import pickle
import signal
import sys
import traceback
from typing import Any

from mcs_plugin.host import orphans, wire
from mcs_plugin.host.errors import SceneLost, SimulatorUnavailable


class EmbeddedBackend:
    """The embedded simulator, as served by a host child."""

    def __init__(self, config: Any = None, **_: Any) -> None:
        from mcs_plugin.sim.controller import EmbeddedController

        self.controller = EmbeddedController(config)
        self.info = {"backend": "embedded"}

    def start_scene(self, scene: dict) -> Any:
        """Start a scene from its dict."""
        return self.controller.start_scene(scene)

    def step(self, action: str, params: dict) -> Any:
        """Run one action."""
        return self.controller.step(action, **params)

    def end_scene(self, choice: Any, confidence: Any) -> dict:
        """End the scene."""
        return self.controller.end_scene(choice, confidence)

    def stop(self) -> None:
        """Release the simulator."""
        self.controller.stop_simulation()


def make_backend(kind: str, options: dict[str, Any]) -> Any:
    """Create the backend named `kind` ("embedded" or "unity") with its options."""
    if kind == "embedded":
        return EmbeddedBackend(**options)
    if kind == "unity":
        from mcs_plugin.unity.adapter import UnityBackend

        return UnityBackend(**options)
    raise SimulatorUnavailable(f"unknown backend {kind!r}")


def _exception_payload(error: BaseException) -> bytes | None:
    cls = type(error)
    try:
        return pickle.dumps({"module": cls.__module__, "qualname": cls.__qualname__, "args": wire.plain(error.args),
                             "state": wire.plain({k: v for k, v in vars(error).items()})}, protocol=wire.PROTOCOL)
    except Exception:  # noqa: BLE001 - best effort; the message is always sent too
        return None


def error_reply(error: BaseException, kind: str | None = None) -> dict[str, Any]:
    """The reply for a call that raised `error`."""
    if kind is None:
        if isinstance(error, ValueError):
            kind = "value_error"
        elif isinstance(error, SimulatorUnavailable):
            kind = "unavailable"
        elif isinstance(error, SceneLost):
            kind = "scene_lost"
        else:
            kind = "error"
    return {"ok": False, "kind": kind, "type": f"{type(error).__module__}.{type(error).__qualname__}",
            "message": str(error), "traceback": "".join(traceback.format_exception(type(error), error,
                                                                                  error.__traceback__)),
            "exception": _exception_payload(error) if kind == "value_error" else None}


class Server:
    """The serve loop of one child."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.reader = io.FileIO(read_fd, "rb", closefd=False)
        self.write_fd = write_fd
        self.backend: Any = None
        self.interrupts = 0

    def on_sigint(self, signum, frame) -> None:  # noqa: ARG002 - signal handler signature
        """MCS's inactivity watchdog calls _thread.interrupt_main(): count it instead of raising anywhere.

        The watchdog has already ended the scene; the unity adapter notices that on the next call (SceneLost).
        """
        self.interrupts += 1

    def reply(self, message: dict[str, Any]) -> None:
        """Send one reply frame."""
        wire.write_frame(self.write_fd, message)

    def handle(self, request: dict[str, Any]) -> tuple[Any, bool]:
        """Run one request; returns (value, stop_after_reply)."""
        op = request["op"]
        if op == "init":
            try:
                self.backend = make_backend(request["backend"], request.get("options") or {})
            except ImportError as error:  # this Python lacks the backend's libraries: retrying cannot help
                raise SimulatorUnavailable(f"the {request['backend']} backend cannot be imported by "
                                           f"{sys.executable}: {error}") from error
            return {"pid": os.getpid(), "python": sys.version.split()[0], **getattr(self.backend, "info", {})}, False
        if op == "ping":
            return "pong", False
        if op == "stop":
            if self.backend is not None:
                try:
                    self.backend.stop()
                except Exception:  # noqa: BLE001 - stopping anyway
                    pass
            return None, True
        if self.backend is None:
            raise RuntimeError("the host child received a call before init")
        if op == "start_scene":
            output = self.backend.start_scene(request["scene"])
            return wire.encode_step_metadata(output), False
        if op == "step":
            output = self.backend.step(request["action"], request.get("params") or {})
            return (None if output is None else wire.encode_step_metadata(output)), False
        if op == "end_scene":
            return wire.plain(self.backend.end_scene(request.get("choice"), request.get("confidence"))), False
        raise RuntimeError(f"unknown host operation {op!r}")

    def serve(self) -> None:
        """Answer requests until the parent says stop or closes the pipe."""
        while True:
            try:
                request = wire.read_frame(self.reader)
            except (EOFError, OSError):
                return
            stop = False
            try:
                value, stop = self.handle(request)
                message: dict[str, Any] = {"ok": True, "value": value}
            except KeyboardInterrupt as error:  # the MCS watchdog fired while our handler was not installed
                message = error_reply(SceneLost(f"the backend was interrupted: {error!r}"))
            except BaseException as error:  # noqa: BLE001 - SystemExit from MCS included: report, keep serving
                message = error_reply(error)
            try:
                self.reply(message)
            except (BrokenPipeError, OSError):
                return
            if stop:
                return


def main(argv: list[str] | None = None, server_class: type[Server] = Server) -> None:
    """Entry point of the child process, serving with `server_class`."""
    parser = argparse.ArgumentParser(description="mcs_plugin controller host child (started by HostProcess)")
    parser.add_argument("--read-fd", type=int, required=True)
    parser.add_argument("--write-fd", type=int, required=True)
    parser.add_argument("--parent-pid", type=int, required=True)
    args = parser.parse_args(argv)
    orphans.arm(args.parent_pid)
    server = server_class(args.read_fd, args.write_fd)
    signal.signal(signal.SIGINT, server.on_sigint)
    wire.enlarge_pipe(args.write_fd)
    try:
        server.serve()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        orphans.kill_own_group(0)


if __name__ == "__main__":
    main()
