"""The console script's last step: leave with the command's exit status, whatever arrives after.

When a command returns, its work is on disk and its status decided; what is left is the
interpreter's teardown (stopping the grading workers, collecting a run's garbage: a tenth of a
second to half a second after a run). A Ctrl-C there used to kill the process by SIGINT, silently,
so a script saw a finished run as interrupted. From here a Ctrl-C says the command had ended and
exits at once with its status; and the objects still alive are frozen out of the garbage
collector, which spares the final collection most of its walk.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
from functools import partial
from typing import NoReturn


def exit_with(status: int) -> NoReturn:
    """End the process with ``status``: a Ctrl-C during teardown exits at once with that status."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, partial(_already_ended, status))
    gc.freeze()
    sys.exit(status)


def _already_ended(status: int, signum: int, frame: object) -> None:
    """SIGINT after the command returned: flush what was written, say so, and leave with ``status``."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can reach it
            pass
    try:
        sys.stderr.write(f"physeval: interrupted after the command had ended; its exit status ({status}) stands\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(status)
