"""An X display for the Unity app: DISPLAY when set, else a private Xvfb, else a clear error.

The MCS Unity player is a windowed Linux app (ai2thor starts it with headless=False) and ai2thor checks
the display with `xdpyinfo` before launching it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass

INSTALL_HINT = ("install Xvfb (Debian/Ubuntu: apt-get install xvfb x11-utils; Fedora: dnf install "
                "xorg-x11-server-Xvfb xdpyinfo), or set DISPLAY to a running X server, or pass display=':N'")


class DisplayUnavailable(RuntimeError):
    """No X display can be had: DISPLAY is unset and Xvfb is not installed (the message says what to install)."""


@dataclass
class XDisplay:
    """A display name, plus the private Xvfb process serving it (None when the display was given)."""

    name: str
    process: subprocess.Popen | None = None

    def stop(self) -> None:
        """Stop the private Xvfb, if this display started one."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=5)
        self.process = None


def start_xvfb(executable: str = "Xvfb", screen: str = "1024x768x24", timeout: float = 15.0) -> XDisplay:
    """Start a private Xvfb on a free display number (chosen by Xvfb through -displayfd) and return it."""
    path = shutil.which(executable)
    if path is None:
        raise DisplayUnavailable(f"no X display: DISPLAY is not set and {executable} is not on PATH; {INSTALL_HINT}")
    read_fd, write_fd = os.pipe()
    try:
        process = subprocess.Popen([path, "-displayfd", str(write_fd), "-screen", "0", screen, "-nolisten", "tcp"],
                                   pass_fds=(write_fd,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE)
    finally:
        os.close(write_fd)
    number = b""
    deadline = time.monotonic() + timeout
    with os.fdopen(read_fd, "rb", buffering=0) as reader:
        import select

        while not number.endswith(b"\n"):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([reader], [], [], remaining)[0]:
                process.kill()
                raise DisplayUnavailable(f"{path} did not report a display within {timeout:.0f} s")
            chunk = reader.read(16)
            if not chunk:
                process.wait(timeout=5)
                err = process.stderr.read().decode(errors="replace")[-2000:] if process.stderr else ""
                raise DisplayUnavailable(f"{path} exited with code {process.returncode}: {err.strip()}")
            number += chunk
    if process.stderr is not None:
        process.stderr.close()
    return XDisplay(f":{int(number.strip())}", process)


def resolve_display(display: str | None = None, environ: dict | None = None) -> XDisplay:
    """The display to use: `display` (":N", or "xvfb" to force a private Xvfb), else $DISPLAY, else a private Xvfb."""
    environ = os.environ if environ is None else environ
    if display == "xvfb":
        return start_xvfb()
    if display:
        return XDisplay(display)
    if environ.get("DISPLAY"):
        return XDisplay(environ["DISPLAY"])
    return start_xvfb()
