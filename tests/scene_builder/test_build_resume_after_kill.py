"""A build killed with SIGKILL mid-way resumes to exactly the output of an uninterrupted build,
and no request the server answered is ever sent again.

The build runs in a subprocess against the scripted server in this process. After ``N``
answered requests the server holds the next one (its reply never comes) and the test kills the
build while it waits; the rerun of the same command must finish the build. One request at a
time (``--max-connections 1``), so at the moment of the kill every answered reply has been
received and stored; the held request was never answered, and is asked again.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from scripted_build import BuildScript
from test_pipeline import build_args

from physeval.scene_builder.store import BuildStore
from physeval.testing import ScriptedServer

pytestmark = pytest.mark.slow


def _outputs(build_dir: Path) -> dict[str, bytes]:
    names = ["card.md", "review/sheet.csv", "review/sheet.jsonl",
             *(f"dataset/{p.name}" for p in (build_dir / "dataset").glob("*.jsonl")),
             *(f"plots/{p.name}" for p in (build_dir / "plots").glob("*.png"))]
    return {name: (build_dir / name).read_bytes() for name in sorted(names)}


def _build(out: Path, server: ScriptedServer, cache: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PHYSEVAL_CACHE_DIR": str(cache)}
    command = [sys.executable, "-m", "physeval.cli", *build_args(out, server, "--max-connections", "1")]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, bytes], list[str]]:
    """The outputs and the answered requests of an uninterrupted build."""
    root = tmp_path_factory.mktemp("reference")
    script = BuildScript()
    with ScriptedServer(script) as server:
        process = _build(root / "scenes", server, root / "cache")
        _, err = process.communicate(timeout=300)
    assert process.returncode == 0, err.decode()
    return _outputs(root / "scenes"), script.answered


@pytest.mark.parametrize("answered_before_kill", [5, 19])  # 19: killed between two attempts of one reply
def test_killed_build_resumes_to_identical_output_without_repeating_a_request(
        tmp_path: Path, reference: tuple[dict[str, bytes], list[str]], answered_before_kill: int) -> None:
    expected_outputs, expected_requests = reference
    out = tmp_path / "scenes"
    script = BuildScript(hold_after=answered_before_kill)
    with ScriptedServer(script) as server:
        process = _build(out, server, tmp_path / "cache")
        try:
            assert script.held.wait(120), "the build never reached the held request"
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=60)
        finally:
            script.release.set()
        assert process.returncode == -signal.SIGKILL
        with BuildStore(out) as store:  # killed in the middle: some stages done, the card not written
            finished = sum(len(store.done_keys(s)) for s in ("basic", "compose", "plausibility", "questions", "review"))
        assert 0 < finished and not (out / "card.md").exists()

        script.hold_after = None
        resumed = _build(out, server, tmp_path / "cache")
        _, err = resumed.communicate(timeout=300)
        assert resumed.returncode == 0, err.decode()

    assert len(set(script.answered)) == len(script.answered), "an answered request was sent again"
    assert Counter(script.answered) == Counter(expected_requests)
    assert _outputs(out) == expected_outputs
    assert json.loads((out / "dataset" / "scenes.jsonl").read_text().splitlines()[0])["id"] == "projectile-motion-01-1"


def test_one_request_at_a_time_builds_what_eight_at_once_build(reference: tuple[dict[str, bytes], list[str]],
                                                                built: tuple[Path, BuildScript]) -> None:
    assert _outputs(built[0]) == reference[0]  # the shared build ran with the default --max-connections 8
