"""Scene track: prompt, isolated execution, video checks and frame sampling (and judges)."""

from physeval.scenes.frames import Frame, sample_frames
from physeval.scenes.prompt import extract_code, scene_prompt
from physeval.scenes.render import STAGES, Render, render_program
from physeval.scenes.sandbox import (
    SandboxLimits,
    SandboxResult,
    SandboxUnavailable,
    default_sandbox_python,
    isolation_report,
    run_sandboxed,
    setup_sandbox_env,
)
from physeval.scenes.video import VideoFacts, probe_video

__all__ = [
    "Frame",
    "sample_frames",
    "extract_code",
    "scene_prompt",
    "STAGES",
    "Render",
    "render_program",
    "SandboxLimits",
    "SandboxResult",
    "SandboxUnavailable",
    "default_sandbox_python",
    "isolation_report",
    "run_sandboxed",
    "setup_sandbox_env",
    "VideoFacts",
    "probe_video",
]
