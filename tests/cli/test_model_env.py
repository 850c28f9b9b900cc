"""``PHYSEVAL_MODEL`` names the model of ``physeval run`` without ``--model``.

Why: the pages' commands (``physeval run --limit 2``) mean "your model"; a reader with a server,
and the docs test with its scripted one, point them at it without editing every command.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from physeval.testing import Reply, ScriptedServer


def test_physeval_model_is_the_default_model_and_model_flag_wins(tmp_path: Path) -> None:
    with ScriptedServer(lambda request: Reply.text("\\boxed{1}")) as server:
        env = {**os.environ, "PHYSEVAL_MODEL": "openai/from-env", "OPENAI_BASE_URL": server.base_url,
               "OPENAI_API_KEY": "sk-test", "PHYSEVAL_CACHE_DIR": str(tmp_path / "cache")}
        run = [sys.executable, "-m", "physeval", "run", "--limit", "1", "-T", "variants=1"]
        first = subprocess.run([*run, "--out", str(tmp_path / "a")], env=env, capture_output=True, text=True)
        assert first.returncode == 0, first.stderr[-2000:]
        assert {r.body["model"] for r in server.requests} == {"from-env"}
        second = subprocess.run([*run, "--out", str(tmp_path / "b"), "--model", "openai/flag"], env=env,
                                capture_output=True, text=True)
        assert second.returncode == 0, second.stderr[-2000:]
        assert server.requests[-1].body["model"] == "flag"
    assert json.loads((tmp_path / "a" / "summary.json").read_text())["model"] == "openai/from-env"
