"""Whose failure is it: re-verifying the build when a program fails the way a damaged environment would.

Why: a build is verified once a process and then trusted. When it is damaged afterwards (a
package directory moved or deleted under a long-lived ``physeval serve`` or a training loop),
every program failed with ``ModuleNotFoundError`` and was scored 0 as the model's error, while
``physeval render`` at the same moment said ``sandbox_error``.

What counts as such a failure (:func:`could_be_environment`): the program exited non-zero with
an import failure in its stderr (``ImportError``, ``ModuleNotFoundError``, a shared object that
cannot be opened), or died of ``SIGSEGV``, ``SIGBUS`` or ``SIGILL`` (a truncated library) without
being killed by a limit. The program's words never decide anything: they only make physeval run
the real check again (:func:`~.environment.verify_environment`, a probe the program cannot
influence, since the environment is read-only to it). If the build no longer verifies, the
render is ``sandbox_error`` with the fix and the verification is dropped
(:func:`~.environment.forget_verification`), so the next call verifies again; if it still
verifies, the failure stays the program's.

Cost: at most one re-verification per build per failure burst in a process. After a
re-verification that passed, further failures under the same build are not checked again
until a program under it exits 0 (which ends the burst). No clock decides anything.
"""

from __future__ import annotations

import signal
import threading

from physeval.scenes.sandbox.environment import EnvironmentCheck, forget_verification, verify_environment
from physeval.scenes.sandbox.limits import SandboxResult

__all__ = ["could_be_environment", "note_outcome", "recheck_after_failure"]

_IMPORT_SIGNS = ("ImportError", "ModuleNotFoundError", "cannot open shared object file")
_LIBRARY_SIGNALS = frozenset({signal.SIGSEGV, signal.SIGBUS, signal.SIGILL})

_rechecked: set[tuple[str, str | None, str]] = set()  # builds re-verified in the current failure burst
_lock = threading.Lock()


def _key(check: EnvironmentCheck) -> tuple[str, str | None, str]:
    return (check.python, check.sha256, check.backend)


def could_be_environment(result: SandboxResult) -> bool:
    """Whether the program's failure is one that a damaged environment could explain."""
    if result.setup_error or result.timed_out or result.killed_reason:
        return False
    if result.signal is not None:
        return result.signal in _LIBRARY_SIGNALS
    return result.exit_code != 0 and any(sign in result.stderr_tail for sign in _IMPORT_SIGNS)


def note_outcome(check: EnvironmentCheck, result: SandboxResult) -> None:
    """Record how a program under ``check``'s build ended: exit status 0 ends a failure burst."""
    if result.ok:
        with _lock:
            _rechecked.discard(_key(check))


def recheck_after_failure(check: EnvironmentCheck) -> None:
    """Verify ``check``'s build again after a failure :func:`could_be_environment` flagged.

    Does nothing when this build was already re-verified in the current failure burst. Raises
    what :func:`~.environment.verify_environment` raises when the build no longer verifies
    (its verification then stays dropped for the process, so the next call verifies again).
    """
    key = _key(check)
    with _lock:
        if key in _rechecked:
            return
        _rechecked.add(key)
    forget_verification(check)
    try:
        verify_environment(check.python, sandbox=check.backend)
    except BaseException:
        with _lock:
            _rechecked.discard(key)  # broken: the next failure under it (once repaired) is checked again
        raise
