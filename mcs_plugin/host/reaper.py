"""A reaper beside each host child: it SIGKILLs the child's process group as soon as the parent dies.

The child's own layers (`orphans.arm`) need the child to run; a child stopped by SIGSTOP (or frozen in a
debugger) runs none of them, and the kernel holds its SIGTERM until it is continued. The reaper is a separate
`sh` in its own session: it blocks reading a pipe whose only writer is the parent, so the parent's death (by any
signal) gives it EOF, and it kills the group; SIGKILL reaches stopped processes too.
"""

from __future__ import annotations

import os
import subprocess

# $0 is the process group id; `read` returns at EOF, i.e. when the parent (the pipe's only writer) is gone.
_SCRIPT = 'read _ ; kill -9 "-$0" 2>/dev/null'


class Reaper:
    """Kills process group `pgid` when this (parent) process dies; `cancel()` when the group is gone anyway."""

    def __init__(self, pgid: int) -> None:
        read_end, self._write_end = os.pipe()  # both close-on-exec: later children never hold the write end
        try:
            self.proc = subprocess.Popen(["/bin/sh", "-c", _SCRIPT, str(pgid)], stdin=read_end,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         start_new_session=True)
        except OSError:
            os.close(self._write_end)
            raise
        finally:
            os.close(read_end)

    def cancel(self) -> None:
        """Stop the reaper without it killing anything (the group was killed already); safe to call repeatedly."""
        if self._write_end < 0:
            return
        self.proc.kill()  # before the pipe closes, so it never signals a group id that may have been reused
        self.proc.wait()
        os.close(self._write_end)
        self._write_end = -1
