"""Every shell and Python block of README.md and docs/*.md runs as written, and prints what it says.

Why: a page whose command fails is the first bug a reader meets. Each block is one test case,
named ``page:line``. The blocks of one page run in page order in one fresh directory (a run
folder made by one block is reported on by the next), on one xdist worker. Each block runs in
a private network namespace (tests/_docs_inside.py) where a scripted model answers instantly
on 127.0.0.1:8000 (vLLM's usual address; ``$BASE_URL``, ``OPENAI_BASE_URL`` and
``PHYSEVAL_MODEL`` point there) and 127.0.0.1:8001 (the pages' judge); nothing else is reachable.

The page's directory holds small copies of the public datasets under the names the pages use
(the first problems of each file, so that a full-dataset command costs seconds; the blocks that
name them skip when ../shared/data is absent), ``../shared/data`` laid out as from the
repository root, and links to the repository's ``src`` and ``tests`` (pages about the code run
its tests). Markers and stated outputs: tests/_docs_blocks.py.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from _docs_blocks import Block, console_parts, line_matches, page_blocks, stated_words, value_matches
from _docs_python import instrument
from _shared_bank import link_shared_bank

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"  # as tests/conftest.py names it

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "api").glob("*.md"))]
BLOCKS = [block for page in PAGES for block in page_blocks(ROOT, page)]
INSIDE = Path(__file__).with_name("_docs_inside.py")
DATA_NAMES = ("Phy_A_fixed_400.csv", "Phy_B_dynamic_100.csv", "PHYBench-fullques_v1.json", "shared/data")
KEEP = {"Phy_A_fixed_400.csv": 8, "Phy_B_dynamic_100.csv": 48, "PHYBench-fullques_v1.json": 4}


def _namespaces_work() -> bool:
    try:
        return subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0
    except OSError:
        return False


def _small_copy(source: Path, target: Path) -> None:
    """The first problems of a public dataset file, in its own format."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.suffix == ".json":
        target.write_text(json.dumps(json.loads(source.read_text(encoding="utf-8"))[:KEEP[source.name]],
                                     ensure_ascii=False), encoding="utf-8")
        return
    text = source.read_text(encoding="utf-8-sig")
    rows = list(csv.reader(text.splitlines(keepends=True)))
    with target.open("w", encoding="utf-8-sig", newline="") as out:
        csv.writer(out, quoting=csv.QUOTE_ALL).writerows(rows[:KEEP[source.name] + 1])


def _prepare(page: str, base: Path) -> Path:
    """The page's working directory: data copies, repository links, the page's files."""
    work = base / "work"
    (base / "home").mkdir(parents=True)
    work.mkdir()
    for name in ("src", "tests"):
        (work / name).symlink_to(ROOT / name)
    if SHARED_DATA.is_dir():
        for source in [*SHARED_DATA.glob("abench/*.csv"), *SHARED_DATA.glob("phybench/PHYBench-fullques_v1.json")]:
            _small_copy(source, work / source.name)
            _small_copy(source, base / "shared" / "data" / source.parent.name / source.name)
    for block in BLOCKS:
        if block.page == page and block.file_name:
            (work / block.file_name).write_text(block.text, encoding="utf-8")
    return work


class PageDirs:
    """Each page's working directory, and which of its blocks have run there (in page order)."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        self.factory = factory
        self.dirs: dict[str, Path] = {}
        self.ran: dict[str, set[int]] = {}

    def ready(self, block: Block) -> Path:
        """The page's directory with every earlier block of the page run in it (once), so a block
        finds what the ones above it made whatever order or worker the cases land on."""
        if block.page not in self.dirs:
            base = self.factory.mktemp(block.page.replace("/", "-"))
            link_shared_bank(base / "cache", self.factory)  # the page's PHYSEVAL_CACHE_DIR (_environment)
            self.dirs[block.page] = _prepare(block.page, base)
            self.ran[block.page] = set()
        work = self.dirs[block.page]
        for earlier in BLOCKS:
            if earlier.page == block.page and earlier.line < block.line and earlier.line not in self.ran[block.page]:
                self.ran[block.page].add(earlier.line)
                if earlier.skip is None and earlier.kind != "console" and not _needs_missing_data(earlier):
                    done = _run_block(earlier, work)[0]
                    assert done.returncode == 0, f"the earlier block {earlier.id} failed (exit {done.returncode})"
        self.ran[block.page].add(block.line)
        return work


@pytest.fixture(scope="session")
def page_dirs(tmp_path_factory: pytest.TempPathFactory) -> PageDirs:
    """The pages' working directories, made on first use and kept for the session."""
    return PageDirs(tmp_path_factory)


def _needs_missing_data(block: Block) -> bool:
    return not SHARED_DATA.is_dir() and any(name in block.text for name in DATA_NAMES)


def _script(block: Block, work: Path) -> tuple[str, Path, dict[int, str]]:
    """What to run for the block: the kind, the script file, the values it states by line."""
    if block.kind == "python":
        source, stated = instrument(block.text)
        path = work / f".docs-test-{block.line}.py"
        path.write_text(source, encoding="utf-8")
        return "python", path, stated
    text = block.text
    if block.kind == "console":
        text = "".join(f"{command}\n" for command, _ in console_parts(block.text))
    path = work / f".docs-test-{block.line}.sh"
    path.write_text(text, encoding="utf-8")
    return "bash", path, {}


def _environment(work: Path, shown: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}", HOME=str(work.parent / "home"),
               BASE_URL="http://127.0.0.1:8000/v1", OPENAI_BASE_URL="http://127.0.0.1:8000/v1",
               OPENAI_API_KEY="sk-docs-test", PHYSEVAL_MODEL="vllm/docs-model", DOCS_TEST_SHOWN=str(shown),
               PHYSEVAL_CACHE_DIR=str(work.parent / "cache"), WANDB_MODE="offline",
               NO_COLOR="1", COLUMNS="120")
    return env


def _run_block(block: Block, work: Path) -> tuple[subprocess.CompletedProcess[str], str, dict[int, str], Path]:
    """Run one block in the page's directory, in its own network namespace."""
    kind, script, stated = _script(block, work)
    shown_file = work.parent / f"shown-{block.line}.json"
    done = subprocess.run(["unshare", "-rn", sys.executable, str(INSIDE), kind, str(script)], cwd=work,
                          env=_environment(work, shown_file), capture_output=True, text=True, timeout=1100)
    return done, kind, stated, shown_file


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("block", [pytest.param(b, id=b.id, marks=pytest.mark.xdist_group(f"docs-{b.page}"))
                                   for b in BLOCKS])
def test_block_runs_as_written(block: Block, page_dirs: PageDirs) -> None:
    if block.skip:
        pytest.skip(block.skip)
    if _needs_missing_data(block):
        pytest.skip("../shared/data is not present")
    if not _namespaces_work():
        pytest.skip("unshare -rn (a user and network namespace) is not allowed here")
    work = page_dirs.ready(block)
    done, kind, stated, shown_file = _run_block(block, work)
    said = f"{block.id} ({kind}):\n--- stdout\n{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}"
    assert done.returncode == 0, f"exit status {done.returncode} from {said}"
    if stated:
        seen = json.loads(shown_file.read_text(encoding="utf-8")) if shown_file.exists() else {}
        for offset, value in stated.items():
            line = block.line + offset
            runs = seen.get(str(offset))
            assert runs is not None, f"{block.page}:{line} states {value!r} but never ran; {said}"
            if runs and isinstance(runs[0], str):  # a print: its lines, joined
                assert value_matches(value, [", ".join(runs)]), f"{block.page}:{line} printed {runs}, page: {value}"
            else:
                assert all(value_matches(value, r) for r in runs), f"{block.page}:{line} gave {runs}, page: {value}"
    for number, line_text in enumerate(block.text.splitlines(), start=block.line + 1):
        for word in stated_words(line_text):
            assert word in done.stdout, f"{block.page}:{number} says it prints {word!r}; {said}"
    if block.kind == "console":
        printed = (done.stdout + done.stderr).splitlines()  # the terminal shows both
        for _command, output in console_parts(block.text):
            for line_text in output:
                at = next((i for i, p in enumerate(printed) if line_matches(line_text, p)), None)
                assert at is not None, f"{block.id}: no printed line like {line_text!r}; {said}"
                printed = printed[at + 1:]


def test_the_blocks_are_found() -> None:
    """The collector sees the pages' blocks (a fence it cannot parse would silently drop them)."""
    assert len(BLOCKS) > 70
    assert {b.kind for b in BLOCKS} == {"bash", "console", "python"}
    assert all(b.skip is None or b.skip.strip() for b in BLOCKS)


if shutil.which("unshare") is None:  # pragma: no cover - util-linux is everywhere the suite runs
    pytestmark = pytest.mark.skip(reason="unshare (util-linux) is not installed")


def test_stated_values_match_as_the_pages_mean_them() -> None:
    """The matcher of stated outputs: digits shown, ``...``, tuples with or without parentheses."""
    assert value_matches("46.67", ["46.666666666666664"]) and not value_matches("46.67", ["46.6"])
    assert value_matches("(0.3, 0.9166...)", ["(0.3, 0.9166666666666666)"])
    assert not value_matches("(0.3, 0.9166...)", ["(0.3, 0.9176)"])
    assert value_matches("True, 30.0, 'correct', 'within ...'", ["True, 30.0, 'correct', 'within 0.01 relative'"])
    assert not value_matches("[1.0]", ["[0.0]"])
    assert line_matches("  entries: 1461 (parse 725, tree 736), 2.1 MiB", "  entries: 10 (parse 4, tree 6), 6.8 KiB")
    assert not line_matches("response cache: /home/me/responses.sqlite (absent)", "response cache: /x/r.sqlite (3 rows)")
    assert stated_words('physeval score X || echo "exit status $?"   # exit status 3: missing') == ["exit", "status", "3"]
