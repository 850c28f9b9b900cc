"""Run a model-written scene program in the sandbox and say how far it got.

Why: the scene metrics (executable, render, playable rates) need one precise definition of
each stage. A sample reaches exactly one stage; the stages form a ladder, each requiring the
one before:

    no_code        no program was extracted from the reply (nothing ran)
    sandbox_error  the sandbox itself failed to start, no isolating backend is available here,
                   the sandbox interpreter's environment is broken (a missing library, a lock
                   file it disagrees with: the reason names ``physeval sandbox setup``), or the
                   render worker died (never the program's doing: it cannot reach its
                   supervision; nothing was measured and nothing ran unisolated)
    timeout        the wall-clock limit was reached; every process was killed
    error          the program ended any other way than exit status 0 within the limits
                   (exception, non-zero exit, signal, CPU/memory/file-size/output limit, or a
                   refused attack on whatever it could reach)
    executable     exited 0 within the limits, but no MP4 over 1 kB at the given path
    rendered       executable, and the file at sys.argv[1] exists and is over 1 kB,
                   but it is not playable: not an MP4 (a GIF, Matroska or QuickTime file
                   at the .mp4 path), an unknown or non-MP4 codec, over the decoding bounds
                   (refused before decoding), or any decoder failure, with the reason
    playable       rendered, an MP4 within the bounds that decodes, its frames span >= 1 s
                   at >= 1 fps, and not all frames are identical (see physeval.scenes.video)

The program receives the output path as its first argument; the video is moved to the
caller's ``keep_dir`` (the run directory) because judges read it afterwards.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from physeval.scenes.sandbox import (
    AUTO,
    EnvironmentCheck,
    SandboxEnvironmentError,
    SandboxLimits,
    SandboxResult,
    SandboxUnavailable,
    needs_verification,
    run_sandboxed,
    verify_environment,
)
from physeval.scenes.sandbox.recheck import could_be_environment, note_outcome, recheck_after_failure
from physeval.scenes.video import VideoBounds, VideoFacts, probe_video

__all__ = ["MIN_VIDEO_BYTES", "STAGES", "Stage", "Render", "render_program"]


class Stage(StrEnum):
    """The render stages, defined once, in ladder order (members are strings)."""

    NO_CODE = "no_code"
    SANDBOX_ERROR = "sandbox_error"
    TIMEOUT = "timeout"
    ERROR = "error"
    EXECUTABLE = "executable"
    RENDERED = "rendered"
    PLAYABLE = "playable"


STAGES: tuple[str, ...] = tuple(Stage)
"""Every stage name, from the earliest stop to the furthest."""

MIN_VIDEO_BYTES = 1024
"""A video file must be larger than this to count as rendered."""

_STDERR_KEEP = 4000


@dataclass(frozen=True)
class Render:
    """The outcome of rendering one program.

    Attributes:
        stage: One of :data:`STAGES` (see the module docstring for exact definitions).
        reason: Why the program stopped at ``stage`` (empty when it reached ``playable``).
        video_path: Absolute path of the kept video, or ``None`` when none was written.
        exit_code: The program's exit status (``None`` if killed by a signal or never ran).
        signal: The signal that ended the program, if any.
        wall_s: Wall-clock seconds of the program.
        cpu_s: CPU seconds of the program and its descendants.
        peak_memory_bytes: Largest resident set of the program or a descendant.
        stderr_tail: The end of the program's stderr (at most 4000 characters).
        killed_reason: ``"timeout"``, ``"output_limit"``, ``"cpu_limit"``, ``"memory_limit"`` or ``None``.
        sandbox_mode: The sandbox backend in force (``"bwrap"``, ``"namespaces"``, ``"none"``).
        video: Facts about the video (``None`` when no file was written).
        workdir_files: Files the program left in its working directory (name -> bytes).
        environment: The verified sandbox environment the program ran under
            (:meth:`~physeval.scenes.sandbox.EnvironmentCheck.to_dict`: the pinned interpreter,
            its build, lock hash and backend); ``None`` when nothing ran.
    """

    stage: str
    reason: str = ""
    video_path: str | None = None
    exit_code: int | None = None
    signal: int | None = None
    wall_s: float | None = None
    cpu_s: float | None = None
    peak_memory_bytes: int | None = None
    stderr_tail: str = ""
    killed_reason: str | None = None
    sandbox_mode: str | None = None
    video: VideoFacts | None = None
    workdir_files: dict[str, int] = field(default_factory=dict)
    environment: dict[str, Any] | None = None

    @property
    def executable(self) -> bool:
        """Exited 0 within the limits."""
        return self.stage in ("executable", "rendered", "playable")

    @property
    def rendered(self) -> bool:
        """Executable and the MP4 exists and is over 1 kB."""
        return self.stage in ("rendered", "playable")

    @property
    def playable(self) -> bool:
        """Rendered and the video decodes, spans >= 1 s at >= 1 fps, frames not all identical."""
        return self.stage == "playable"

    def to_dict(self) -> dict[str, Any]:
        """Every field plus the three stage flags, JSON-serialisable."""
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        data["video"] = self.video.to_dict() if self.video is not None else None
        data["executable"] = self.executable
        data["rendered"] = self.rendered
        data["playable"] = self.playable
        return data


def render_program(
    code: str | None,
    *,
    timeout: float = 120,
    limits: SandboxLimits | None = None,
    keep_dir: str | os.PathLike[str] | None = None,
    python: str | None = None,
    video_name: str = "video.mp4",
    sandbox: str = AUTO,
    bounds: VideoBounds | None = None,
    environment: EnvironmentCheck | None = None,
) -> Render:
    """Run ``code`` in the sandbox with an output path as ``sys.argv[1]`` and grade the video.

    Args:
        code: The program (``None`` or blank gives stage ``no_code`` without running).
        timeout: Wall-clock seconds; overrides ``limits.wall_s``.
        limits: Other resource limits (:class:`SandboxLimits` defaults when ``None``).
        keep_dir: Directory the video is moved to (created if needed). When ``None`` a new
            temporary directory is made and left for the caller.
        python: Interpreter for the program (default: see ``default_sandbox_python``); pinned
            and verified inside the backend first (:func:`~physeval.scenes.sandbox.verify_environment`).
        video_name: File name of the video in ``keep_dir`` (unique per sample in a run dir).
        sandbox: The sandbox backend (``"auto"``: the best available isolating one).
        bounds: What the host agrees to decode of the video (:class:`VideoBounds` defaults).
        environment: An environment already verified (a batch passes one to every render so
            that all run under the same build); verified here when ``None``.

    Never raises for anything the program does. When the sandbox cannot run (no isolating
    backend here, the one named is unavailable, or the interpreter's environment is broken)
    the stage is ``sandbox_error``, with the fix in the reason.
    """
    if code is None or not code.strip():
        return Render(stage="no_code", reason="no program in the reply")
    limits = dataclasses.replace(limits or SandboxLimits(), wall_s=float(timeout))
    dest = Path(keep_dir) if keep_dir is not None else Path(tempfile.mkdtemp(prefix="physeval-render-"))
    try:
        if environment is None or sandbox not in (AUTO, environment.backend) or needs_verification(environment):
            environment = verify_environment(environment.python if environment else python, sandbox=sandbox,
                                             require_isolation=limits.require_isolation)
        result = run_sandboxed(
            code,
            args=(f"{{workdir}}/{video_name}",),
            limits=limits,
            environment=environment,
            collect=(video_name,),
            collect_dir=dest,
            sandbox=environment.backend,
        )
    except (SandboxUnavailable, SandboxEnvironmentError) as exc:
        return Render(stage="sandbox_error", reason=str(exc))
    except OSError as exc:  # the sandbox's own binary or files could not be started: the host's fault
        return Render(stage="sandbox_error", reason=f"the sandbox could not start: {type(exc).__name__}: {exc}")
    video_path = result.files.get(video_name)
    base = _base_fields(result, video_path) | {"environment": environment.to_dict()}
    stage, reason = _program_stage(result, limits)
    note_outcome(environment, result)
    if stage == "error" and could_be_environment(result):
        try:  # the real check again, never the program's word (see physeval.scenes.sandbox.recheck)
            recheck_after_failure(environment)
        except (SandboxUnavailable, SandboxEnvironmentError) as exc:
            return Render(stage="sandbox_error", reason=f"{exc} (the program then failed: {reason})", **base)
    if stage != "executable":
        return Render(stage=stage, reason=reason, **base)
    if video_path is None:
        return Render(stage="executable", reason=_missing_video_reason(result, video_name), **base)
    size = os.path.getsize(video_path)
    if size <= MIN_VIDEO_BYTES:
        reason = f"the video is only {size} bytes (need more than {MIN_VIDEO_BYTES})"
        return Render(stage="executable", reason=reason, **base)
    facts = probe_video(video_path, bounds)
    base["video"] = facts
    if not facts.playable:
        return Render(stage="rendered", reason=f"not playable: {facts.reason}", **base)
    return Render(stage="playable", reason="", **base)


def _base_fields(result: SandboxResult, video_path: str | None) -> dict[str, Any]:
    return {
        "video_path": video_path,
        "exit_code": result.exit_code,
        "signal": result.signal,
        "wall_s": result.wall_s,
        "cpu_s": result.cpu_s,
        "peak_memory_bytes": result.peak_memory_bytes,
        "stderr_tail": result.stderr_tail[-_STDERR_KEEP:],
        "killed_reason": result.killed_reason,
        "sandbox_mode": result.mode,
        "video": None,
        "workdir_files": result.workdir_files,
    }


def _program_stage(result: SandboxResult, limits: SandboxLimits) -> tuple[str, str]:
    """Stage and reason from how the program ended (``executable`` when it exited 0)."""
    if result.setup_error:
        return "sandbox_error", f"sandbox failed: {result.setup_error}"
    if result.timed_out:
        return "timeout", f"killed after the {limits.wall_s:g} s wall-clock limit"
    if result.killed_reason == "output_limit":
        return (
            "error",
            f"killed: wrote more than {limits.max_output_bytes} bytes to stdout/stderr",
        )
    if result.killed_reason == "memory_limit":
        return (
            "error",
            f"killed: the run's memory passed {limits.memory_bytes} bytes ({result.memory_accounting})",
        )
    if result.killed_reason == "cpu_limit":
        return "error", f"killed: CPU limit of {limits.cpu_s} s"
    if result.signal is not None:
        return "error", f"killed by signal {result.signal}{_last_error_line(result)}"
    if result.exit_code != 0:
        return "error", f"exit status {result.exit_code}{_last_error_line(result)}"
    return "executable", ""


def _last_error_line(result: SandboxResult) -> str:
    lines = [ln.strip() for ln in result.stderr_tail.splitlines() if ln.strip()]
    return f": {lines[-1][:300]}" if lines else ""


def _missing_video_reason(result: SandboxResult, video_name: str) -> str:
    others = {k: v for k, v in result.workdir_files.items() if k != video_name}
    if others:
        listed = ", ".join(f"{k} ({v} B)" for k, v in list(others.items())[:5])
        return f"no video at sys.argv[1]; the program left: {listed}"
    return "no video at sys.argv[1]"
