"""No sandbox is not a score: a scene run without isolation stops, or records error rows, never 0 %."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from physeval import RunConfig, run_task
from physeval.cli import EXIT_USER_ERROR, main
from physeval.scenes.sandbox import backend as backend_registry
from physeval.scenes.sandbox.backend import Backend, register_backend
from physeval.store import RunStore
from physeval.tasks.registry import get_task
from physeval.testing import Reply, ScriptedServer
from physeval.testing.model import ScriptedModel


class _Unavailable(Backend):
    """A backend that never works here (as namespaces does for a non-root user)."""

    name = "unavailable-test"
    rank = 999

    def _check(self) -> tuple[bool, str]:
        return False, "this test backend is never available"

    def command(self, ctx: Any) -> list[str]:
        raise AssertionError("never run")

    def isolation_report(self) -> dict[str, Any]:
        return {"warnings": []}


@pytest.fixture(autouse=True)
def _unavailable_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the test backend in a copy of the registry, so no other test sees it."""
    monkeypatch.setattr(backend_registry, "BACKENDS", backend_registry.BACKENDS.copy())
    monkeypatch.setattr(backend_registry, "_INSTANCES", dict(backend_registry._INSTANCES))
    register_backend(_Unavailable)


PROGRAM = Reply.text("```python\nimport sys\nopen(sys.argv[1], 'wb').write(b'x')\n```")


def test_a_run_without_a_usable_sandbox_stops_before_any_request(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedServer(lambda r: PROGRAM) as server:
        code = main(["run", "bank-scene", "--model", "openai/m", "--base-url", server.base_url, "--limit", "1",
                     "--sandbox", "unavailable-test", "--out", str(tmp_path / "run"), "--no-progress"])
        chat_requests = [r for r in server.requests if "Scenario" in r.prompt]
    assert code == EXIT_USER_ERROR and chat_requests == []
    assert "never available" in capsys.readouterr().err


def test_renders_that_found_no_sandbox_are_error_rows_not_zeros(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from physeval.scenes.render import render_program

    task = get_task("bank-scene", sandbox="unavailable-test")
    problems = task.load()[:2]

    async def render_here(code: str | None, video_dir: Any, video_name: str) -> Any:
        # in this process, where the test backend is registered (the render pool's workers do not import it)
        return render_program(code, sandbox="unavailable-test")

    monkeypatch.setattr(task, "_render", render_here)
    asyncio.run(run_task(task, ScriptedModel(lambda r: PROGRAM), tmp_path, RunConfig(preflight=False),
                         problems=problems, show_progress=False))
    rows = RunStore(tmp_path).rows()
    assert [(r.status, r.error_kind) for r in rows] == [("error", "sandbox"), ("error", "sandbox")]
    assert all(r.completion and "```python" in r.completion for r in rows)  # kept for --retry-errors
