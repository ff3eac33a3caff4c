"""HostProcess: the parent's handle on one host child (a backend controller in its own process group)."""

from __future__ import annotations

import atexit
import collections
import io
import logging
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path
from typing import Any

from mcs_plugin.host import wire
from mcs_plugin.host.errors import SceneLost, SimulatorCrashed, SimulatorTimeout, SimulatorUnavailable
from mcs_plugin.host.reaper import Reaper

logger = logging.getLogger(__name__)
child_logger = logging.getLogger("mcs_plugin.host.child")

PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])  # the directory that holds mcs_plugin/
_BOOT = ("import importlib, sys; sys.path.insert(0, sys.argv[1]); "
         "importlib.import_module(sys.argv[2]).main(sys.argv[3:])")
_LIVE: weakref.WeakSet[HostProcess] = weakref.WeakSet()


def _kill_all_at_exit() -> None:
    for host in list(_LIVE):
        host.kill()


atexit.register(_kill_all_at_exit)


def _rebuild_value_error(reply: dict[str, Any]) -> ValueError:
    """The child's ValueError, as the same class where it can be imported here, else a plain ValueError."""
    error: ValueError | None = None
    payload = reply.get("exception")
    if payload:
        try:
            data = pickle.loads(payload)
            module = sys.modules.get(data["module"]) or __import__(data["module"], fromlist=["_"])
            cls: Any = module
            for part in data["qualname"].split("."):
                cls = getattr(cls, part)
            if isinstance(cls, type) and issubclass(cls, ValueError):
                error = cls.__new__(cls, *data["args"])
                error.args = tuple(data["args"])
                error.__dict__.update(data.get("state") or {})
        except Exception:  # noqa: BLE001 - fall back to a plain ValueError with the same message
            error = None
    if error is None:
        error = ValueError(reply.get("message", ""))
    if hasattr(error, "add_note") and reply.get("traceback"):
        error.add_note("raised in the simulator process:\n" + reply["traceback"].rstrip())
    return error


class HostProcess:
    """A backend controller running in a child process; `call` sends one request and waits for its reply.

    The child is a session leader, so `kill()` takes down its whole process group (Unity, Xvfb, helpers).
    `child` is the module whose ``main(argv)`` the child runs (``mcs_plugin.host.child`` or one built on it).
    Any timeout, crash or backend exception kills the child before the error is raised; a ValueError from the
    backend is re-raised unchanged and leaves the child running; SceneLost leaves it running too.
    """

    def __init__(self, backend: str = "embedded", options: dict[str, Any] | None = None, *,
                 python_executable: str | None = None, child: str = "mcs_plugin.host.child",
                 env: dict[str, str] | None = None, log_lines: int = 200) -> None:
        self.backend = backend
        self.options = dict(options or {})
        self.python_executable = python_executable or sys.executable
        self.child = child
        self.env = env
        self.info: dict[str, Any] = {}
        self.proc: subprocess.Popen | None = None
        self._reaper: Reaper | None = None
        self._owner_pid = os.getpid()
        self._req_w: int | None = None
        self._reader: io.FileIO | None = None
        self._log: collections.deque[str] = collections.deque(maxlen=log_lines)
        self._log_thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        """The child's pid (also its process-group id), or None before start."""
        return self.proc.pid if self.proc is not None else None

    @property
    def alive(self) -> bool:
        """Whether the child process is still running (without reaping it)."""
        if self.proc is None or self.proc.returncode is not None:
            return False
        try:
            return os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None
        except ChildProcessError:
            return False

    def log_tail(self, lines: int = 40) -> str:
        """The last lines the child (and anything it started) wrote to stdout/stderr."""
        return "\n".join(list(self._log)[-lines:])

    def start(self, timeout: float | None) -> dict[str, Any]:
        """Launch the child and create its backend within `timeout` seconds; returns the child's info dict."""
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        env = dict(os.environ if self.env is None else self.env)
        env["PYTHONPATH"] = os.pathsep.join([PACKAGE_ROOT] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        env.setdefault("PYTHONUNBUFFERED", "1")
        command = [self.python_executable, "-c", _BOOT, PACKAGE_ROOT, self.child, "--read-fd", str(req_r),
                   "--write-fd", str(rep_w), "--parent-pid", str(os.getpid())]
        try:
            self.proc = subprocess.Popen(command, pass_fds=(req_r, rep_w), start_new_session=True, env=env,
                                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        except OSError as error:
            for fd in (req_r, req_w, rep_r, rep_w):
                os.close(fd)
            raise SimulatorUnavailable(f"cannot run {self.python_executable!r}: {error}") from error
        os.close(req_r)
        os.close(rep_w)
        self._reaper = Reaper(self.proc.pid)  # kills the group if this process dies, even with the child stopped
        os.set_blocking(req_w, False)
        self._req_w = req_w
        self._reader = io.FileIO(rep_r, "rb", closefd=True)
        wire.enlarge_pipe(rep_r)
        _LIVE.add(self)
        self._log_thread = threading.Thread(target=self._pump_log, args=(self.proc.stdout,), daemon=True,
                                            name=f"mcs-host-log-{self.proc.pid}")
        self._log_thread.start()
        try:
            self.info = self.call("init", timeout, what="start", backend=self.backend, options=self.options)
        except SceneLost as error:  # not expected at init; treat as a crash
            self.kill()
            raise SimulatorCrashed(f"backend start failed: {error}") from error
        except ValueError:  # a bad config: the caller's mistake, but this child is of no use
            self.kill()
            raise
        return self.info

    def __del__(self) -> None:
        try:
            self.kill()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def _pump_log(self, stream) -> None:
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", errors="replace").rstrip("\n")
            self._log.append(line)
            child_logger.debug("[pid %s] %s", self.pid, line)
        stream.close()

    def kill(self) -> None:
        """SIGKILL the child's whole process group and reap the child; safe to call repeatedly."""
        proc = self.proc
        if proc is None or os.getpid() != self._owner_pid:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process in uninterruptible sleep
            logger.warning("host child %s did not die within 10 s of SIGKILL", proc.pid)
        if self._reaper is not None:
            self._reaper.cancel()
        self._close_fds()
        _LIVE.discard(self)

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the backend to shut down (up to `timeout` s), then kill whatever is left of the process group."""
        if self.proc is None or os.getpid() != self._owner_pid:
            return
        if self.alive and self._req_w is not None:
            try:
                self.call("stop", timeout)
            except Exception:  # noqa: BLE001 - killing it anyway
                pass
        self.kill()

    def _close_fds(self) -> None:
        if self._req_w is not None:
            try:
                os.close(self._req_w)
            except OSError:
                pass
            self._req_w = None
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    # -- calls -----------------------------------------------------------------------------------------------
    def call(self, op: str, timeout: float | None, what: str | None = None, **args: Any) -> Any:
        """Send `op` with `args`, wait up to `timeout` s for the reply and return its value.

        Raises ValueError (the backend's own, child kept), SceneLost (child kept), SimulatorTimeout,
        SimulatorCrashed or SimulatorUnavailable (child killed).
        """
        if self.proc is None or self._req_w is None or self._reader is None:
            raise SimulatorCrashed("the simulator process is not running")
        deadline = None if timeout is None else time.monotonic() + timeout
        what = what or op
        try:
            wire.write_frame(self._req_w, {"op": op, **args}, deadline)
            reply = wire.read_frame(self._reader, deadline)
        except wire.WireTimeout as error:
            self.kill()
            raise SimulatorTimeout(f"simulator {what} did not finish within {timeout} s "
                                   f"(pid {self.pid} killed)", timeout) from error
        except (EOFError, OSError, pickle.UnpicklingError) as error:
            pid = self.pid
            self.kill()
            code = self.proc.returncode if self.proc is not None else None
            how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
            if self._log_thread is not None:
                self._log_thread.join(0.2)  # let the log pump catch the last lines
            raise SimulatorCrashed(f"simulator process {pid} died during {what} ({how}; {error!r})",
                                   self.log_tail()) from error
        except BaseException:  # KeyboardInterrupt mid-call: the pipe is mid-frame, so this child is unusable
            self.kill()
            raise
        if reply.get("ok"):
            return reply.get("value")
        kind = reply.get("kind")
        if kind == "value_error":
            raise _rebuild_value_error(reply)
        if kind == "scene_lost":
            raise SceneLost(reply.get("message", ""))
        self.kill()
        message = f"simulator {what} failed: {reply.get('type')}: {reply.get('message')}"
        if kind == "unavailable":
            raise SimulatorUnavailable(message)
        raise SimulatorCrashed(message + "\n" + (reply.get("traceback") or "").rstrip(), self.log_tail(20))
