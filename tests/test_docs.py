"""The documentation site stays true to the code: every public name has an API entry that points at
the object itself, the layers the architecture page states are the ones the import graph has, and
``mkdocs build --strict`` (broken links, pages left out of the nav, entries that do not resolve)
passes offline.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import physeval

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
API = DOCS / "api"
ENTRY = re.compile(r"^::: (physeval(?:\.\w+)*)$", re.MULTILINE)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_import_graph import import_graph  # noqa: E402


def api_entries() -> dict[str, str]:
    """Public name -> the dotted path of its ``::: path`` block in the API reference pages."""
    entries: dict[str, str] = {}
    for page in sorted(API.glob("*.md")):
        for path in ENTRY.findall(page.read_text(encoding="utf-8")):
            entries.setdefault(path.rsplit(".", 1)[-1], path)
    return entries


def resolve(path: str) -> object:
    """The object a dotted path names: the longest importable module prefix, then attributes."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            value = getattr(value, attribute)
        return value
    raise ImportError(path)


def test_every_public_name_has_an_api_reference_entry() -> None:
    entries = api_entries()
    missing = [name for name in physeval.__all__ if name not in entries]
    assert missing == [], f"public names without a `::: physeval...` entry under docs/api/: {missing}"


@pytest.mark.parametrize("name", [n for n in physeval.__all__ if n != "__version__"])
def test_each_api_entry_documents_the_public_object_itself(name: str) -> None:
    path = api_entries()[name]
    public = getattr(importlib.import_module(physeval._EXPORTS[name]), name)  # what ``physeval.NAME`` loads
    assert resolve(path) is public, f"{path} is not physeval.{name}"


def test_the_version_entry_is_the_version() -> None:
    assert resolve(api_entries()["__version__"]) == physeval.__version__


def test_the_api_overview_lists_every_public_name() -> None:
    overview = (API / "index.md").read_text(encoding="utf-8")
    unlisted = [n for n in physeval.__all__ if n != "__version__" and f"[`{n}`]" not in overview]
    assert unlisted == [], f"docs/api/index.md does not list {unlisted}"


def _stated_layers() -> dict[str, set[str]]:
    """The architecture page's table: package or module -> what it may import from physeval."""
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    table = text.split("| package or module | imports from physeval only |", 1)[1].split("\n\n", 1)[0]
    layers: dict[str, set[str]] = {}
    for line in table.splitlines()[2:]:
        left, right = line.strip("|").split("|", 1)
        allowed = set(re.findall(r"`([\w.]+)`", right))
        for name in re.findall(r"`([\w.]+)`", left):
            layers[name] = allowed
    return layers


def _part(module: str) -> str:
    return module.split(".", 1)[1] if "." in module else module


def test_the_layers_the_architecture_page_states_hold() -> None:
    layers = _stated_layers()
    assert {"grading", "models", "store", "flow.execute"} <= set(layers)
    broken = []
    for module, targets in import_graph().items():
        name = _part(module)
        owner = next((layer for layer in layers if name == layer or name.startswith(layer + ".")), None)
        if owner is None:
            continue
        for target in map(_part, targets):
            if target == owner or target.startswith(owner + "."):
                continue
            if not any(target == ok or target.startswith(ok + ".") for ok in layers[owner]):
                broken.append(f"{module} -> physeval.{target}")
    assert broken == [], ("imports the architecture page says cannot happen (fix the import, or the table under "
                          "'Which package may import which' in docs/architecture.md): " + "; ".join(sorted(broken)))


def test_a_layer_violation_would_be_found(monkeypatch: pytest.MonkeyPatch) -> None:
    graph = import_graph()
    graph["physeval.grading.numeric"] = graph["physeval.grading.numeric"] | {"physeval.flow.execute"}
    monkeypatch.setattr(sys.modules[__name__], "import_graph", lambda: graph)
    with pytest.raises(AssertionError, match="grading.numeric -> physeval.flow.execute"):
        test_the_layers_the_architecture_page_states_hold()


@pytest.mark.slow
def test_the_site_builds_strictly_offline(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    pytest.importorskip("material")
    mkdocs = shutil.which("mkdocs", path=str(Path(sys.executable).parent)) or shutil.which("mkdocs")
    command = [mkdocs] if mkdocs else [sys.executable, "-m", "mkdocs"]
    done = subprocess.run([*command, "build", "--strict", "--site-dir", str(tmp_path / "site")], cwd=ROOT,
                          capture_output=True, text=True, env={**_environment(), "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert (tmp_path / "site" / "api" / "index.html").is_file()


def _environment() -> dict[str, str]:
    """This checkout's sources first, so the entries resolve against the code under test."""
    env = dict(os.environ)
    src = str(ROOT / "src")
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env
