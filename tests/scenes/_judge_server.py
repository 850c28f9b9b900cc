"""Helpers for judge tests: per-model scripted replies on the local test server.

Built on :class:`physeval.testing.ScriptedServer` (a real OpenAI-compatible HTTP server on
127.0.0.1). Each judge model name gets its own queue of replies; a request for a model whose
queue is empty gets HTTP 400 (not retried), so no test can loop.
"""

from __future__ import annotations

import asyncio
import io
import json
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from PIL import Image

from physeval.models import OpenAICompatibleModel, RetryPolicy
from physeval.scenes.frames import Frame
from physeval.scenes.judge import JudgeVerdict, judge_video
from physeval.testing import Reply, Request, ScriptedServer

__all__ = ["JudgeScript", "answer", "make_frames", "run_judges", "Reply"]


class JudgeScript:
    """A ScriptedServer script that answers each model from its own queue."""

    def __init__(self, **queues: Iterable[Reply]) -> None:
        self._queues = {name: list(replies) for name, replies in queues.items()}
        self._lock = threading.Lock()

    def __call__(self, request: Request) -> Reply:
        model = str(request.body.get("model"))
        with self._lock:
            queue = self._queues.get(model)
            if not queue:
                return Reply.error(400, f"no scripted reply left for {model}")
            return queue.pop(0)


def answer(*results: Any, analysis: str = "seen in the frames") -> Reply:
    """A well-formed judge reply: one object per result, indices 1..n."""
    items = [{"index": str(i), "analysis": analysis, "result": r} for i, r in enumerate(results, 1)]
    return Reply.text(json.dumps(items))


def make_frames(n: int = 16, *, fps: float = 1.0) -> list[Frame]:
    """``n`` tiny distinct JPEG frames made with PIL, stamped ``k / fps`` seconds."""
    frames = []
    for k in range(n):
        buf = io.BytesIO()
        Image.new("RGB", (40, 30), ((15 * k) % 256, 80, 160)).save(buf, format="JPEG")
        frames.append(Frame(index=k, time_s=k / fps, jpeg=buf.getvalue(), width=40, height=30))
    return frames


def run_judges(server: ScriptedServer, names: Sequence[str], *, attempts: int = 2, **kwargs: Any) -> JudgeVerdict:
    """Run :func:`judge_video` with one client per judge name against ``server``."""

    async def go() -> JudgeVerdict:
        models = [
            OpenAICompatibleModel(name, base_url=server.base_url, api_key="test-key", timeout=10.0,
                                  retry=RetryPolicy(max_attempts=attempts, base_s=0.001, cap_s=0.005))
            for name in names
        ]
        try:
            return await judge_video(judges=models, **kwargs)
        finally:
            for model in models:
                await model.aclose()

    return asyncio.run(go())
