"""Each integration names its extra when the library is missing, and none is loaded by ``import physeval``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from physeval.errors import MissingExtraError
from physeval.integrations.logging import log_to_tensorboard, log_to_wandb


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], env=dict(os.environ), capture_output=True, text=True,
                          timeout=300, check=False)


def test_import_physeval_loads_no_integration_library() -> None:
    done = _python("import sys, physeval\n"
                   "print(sorted(m for m in ('inspect_ai', 'wandb', 'tensorboardX') if m in sys.modules))")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_inspect_module_without_inspect_ai_names_the_extra() -> None:
    done = _python("import sys\nsys.modules['inspect_ai'] = None\n"
                   "try:\n    import physeval.integrations.inspect\nexcept ImportError as e:\n"
                   "    print(type(e).__name__, e)\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("MissingExtraError") and "pip install 'physeval[inspect]'" in done.stdout


def test_wandb_logging_without_wandb_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "wandb", None)  # makes `import wandb` fail
    with pytest.raises(MissingExtraError, match=r"pip install 'physeval\[wandb\]'"):
        log_to_wandb(tmp_path, "a-project")


def test_tensorboard_logging_without_tensorboardx_names_the_extra(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tensorboardX", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'physeval\[tensorboard\]'"):
        log_to_tensorboard(tmp_path, tmp_path / "tb")
