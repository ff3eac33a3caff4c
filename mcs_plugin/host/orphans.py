"""No orphans: a host child dies with its parent, and takes its whole process group (Unity, Xvfb) with it.

Three layers, all in the child: (1) Linux `prctl(PR_SET_PDEATHSIG, SIGTERM)` through ctypes, so the kernel
signals the child the moment its parent dies (even by SIGKILL); the SIGTERM handler kills the child's process
group. (2) A daemon thread that polls the parent pid (covers non-Linux systems, a parent that died before the
prctl, and a parent thread that exited). (3) EOF on the command pipe ends the serve loop, which also kills the
group. The child is started as a session leader, so its process group holds it and everything it launched.
A fourth layer outside the child covers a child that cannot run at all (stopped): `reaper.Reaper`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1


def set_parent_death_signal(signum: int = signal.SIGTERM) -> bool:
    """Ask Linux to send `signum` to this process when its parent dies; False where prctl is unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def kill_own_group(exit_code: int = 0) -> None:
    """SIGKILL this process's group when this process leads it (it then dies too); else just exit."""
    try:
        if os.getpgrp() == os.getpid():
            os.killpg(os.getpid(), signal.SIGKILL)
    except OSError:
        pass
    os._exit(exit_code)


def _on_parent_death(signum, frame) -> None:  # noqa: ARG001 - signal handler signature
    kill_own_group(128 + signum)


def watch_parent(parent_pid: int, interval: float = 0.25) -> threading.Thread:
    """Start a daemon thread that kills this process group as soon as `parent_pid` is no longer our parent."""

    def run() -> None:
        while True:
            if os.getppid() != parent_pid:
                kill_own_group(1)
            time.sleep(interval)

    thread = threading.Thread(target=run, name="mcs-host-parent-watchdog", daemon=True)
    thread.start()
    return thread


def arm(parent_pid: int) -> None:
    """Install all layers for a child whose parent is `parent_pid` (exits at once if the parent is already gone)."""
    signal.signal(signal.SIGTERM, _on_parent_death)
    signal.signal(signal.SIGHUP, _on_parent_death)
    set_parent_death_signal(signal.SIGTERM)
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        kill_own_group(1)
    watch_parent(parent_pid)
