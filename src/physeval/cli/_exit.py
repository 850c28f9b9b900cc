"""The console script's last step: leave with the command's exit status, whatever arrives after.

When a command returns, its work is on disk and its status decided; what is left is the
interpreter's teardown (stopping the grading workers, collecting a run's garbage). A Ctrl-C or
SIGTERM there used to kill the process by that signal, silently, so a script saw a finished run
as interrupted. From here such a signal says the command had ended and exits at once with its
status. The last exit handler (registered first, so it runs last) then ignores both signals: after
it, Python puts its own handlers back to the default, and the rest of the teardown could again be
killed.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
from functools import partial
from typing import NoReturn

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def prepare_exit() -> None:
    """Call first thing: the exit handler that runs last, ignoring both signals for the teardown after it."""
    if threading.current_thread() is threading.main_thread():
        atexit.register(_ignore_signals)


def exit_with(status: int) -> NoReturn:
    """End the process with ``status``: a Ctrl-C or SIGTERM during teardown exits at once with it."""
    if threading.current_thread() is threading.main_thread():
        for signum in _SIGNALS:
            if signal.getsignal(signum) != signal.SIG_IGN:  # an ignored signal stays ignored
                signal.signal(signum, partial(_already_ended, status))
    sys.exit(status)


def _ignore_signals() -> None:
    for signum in _SIGNALS:
        signal.signal(signum, signal.SIG_IGN)


def _already_ended(status: int, signum: int, frame: object) -> None:
    """A signal after the command returned: flush what was written, say so, and leave with ``status``."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can reach it
            pass
    try:
        name = signal.Signals(signum).name
        sys.stderr.write(f"physeval: {name} after the command had ended; its exit status ({status}) stands\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(status)
