"""A real plugin package, built and pip-installed into a fresh virtual environment, extends physeval.

The package (written here, built by pip from its pyproject.toml) adds a task, a model provider, a
sandbox backend and a metric through physeval's entry-point groups; mypy checks it against the
installed physeval (py.typed), and each part runs from the command line. A second package whose
entry points are wrong gets one line naming it and what each should point to (exit status 2),
and does not hide the first.

The fresh environment sees physeval and its dependencies through a path file (as an editable
install would), so nothing is downloaded; the plugins are real installs in that environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

import physeval

pytestmark = pytest.mark.slow

PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "{name}"
version = "0.1.0"
requires-python = ">=3.11"

[tool.setuptools]
packages = ["{module}"]

[tool.setuptools.package-data]
{module} = ["py.typed"]

{entry_points}
"""

DEMO_ENTRY_POINTS = """\
[project.entry-points."physeval.tasks"]
demo-doubling = "demo_physeval_plugin:Doubling"

[project.entry-points."physeval.providers"]
demo = "demo_physeval_plugin:Doubler"

[project.entry-points."physeval.metrics"]
demo-even = "demo_physeval_plugin:even_accuracy"

[project.entry-points."physeval.sandboxes"]
demo-nice = "demo_physeval_plugin.backend:NiceBackend"
"""

DEMO = '''\
"""A physeval plugin: a task, a model provider and a metric, each found through an entry point."""

from __future__ import annotations

import re
from collections.abc import Sequence

from physeval import (
    Completion,
    GenerateConfig,
    MetricSet,
    NumericTask,
    Problem,
    SampleOutcome,
    item_fraction,
    reduce_metric,
)


class Doubling(NumericTask):
    """Three questions: twice N metres."""

    name = "demo-doubling"
    description = "plugin: twice N metres"

    def load(self) -> list[Problem]:
        return [Problem(id=str(n), question=f"What is twice {n} m? (Results should be expressed with units of "
                                            "$ \\\\mathrm{m} $, rounded to 2 significant figures)", answer=str(2 * n))
                for n in (1, 2, 3, 4)]


class Doubler:
    """A provider that answers twice the number it is asked about (wrong for 3, to be measured)."""

    def __init__(self, name: str, *, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 600.0) -> None:
        self.name = name

    @property
    def cache_identity(self) -> str:
        return f"demo|{self.name}"

    async def call(self, messages: list[dict[str, object]], config: GenerateConfig, n: int) -> list[Completion]:
        found = re.search(r"twice (\\d+)", str(messages[-1]["content"]))
        number = int(found.group(1)) if found else 0
        answer = 2 * number if number != 3 else 7
        return [Completion(text=f"so \\\\boxed{{{answer}\\\\,\\\\mathrm{{m}}}}") for _ in range(n)]


def even_accuracy(outcomes: Sequence[SampleOutcome]) -> MetricSet:
    """Accuracy over the problems with an even id, reduced as accuracy is (with its n)."""
    metric = reduce_metric([o for o in outcomes if int(o.problem_id) % 2 == 0], item_fraction())
    return MetricSet({"even_accuracy": metric} if metric is not None else {})
'''

BACKEND = '''\
"""A sandbox backend: the ``none`` backend's run, at a lower CPU priority."""

from __future__ import annotations

from typing import Any

from physeval.scenes.sandbox.context import RunContext
from physeval.scenes.sandbox.unsafe import NoneBackend


class NiceBackend(NoneBackend):
    """No isolation (like ``none``), every program under ``nice -n 5``."""

    name = "demo-nice"

    def command(self, ctx: RunContext) -> list[str]:
        return ["/usr/bin/nice", "-n", "5", *super().command(ctx)]

    def isolation_report(self) -> dict[str, Any]:
        return {**super().isolation_report(), "cpu": "nice 5"}
'''

# The decorators are typed to what they register: this file must type-check ...
TYPED = '''\
"""The registries' decorators keep the decorated object's type."""

from __future__ import annotations

from physeval import MetricFunction, ModelAPI, register_metric, register_provider
from physeval.models.registry import ProviderFactory

from demo_physeval_plugin import Doubler, even_accuracy

metric: MetricFunction = register_metric("demo-typed")(even_accuracy)
provider: ProviderFactory = register_provider("demo-typed")(Doubler)
api: ModelAPI = Doubler("m")
'''

# ... and this one must not: a registry refuses what is not of its kind, before any run.
MISTYPED = '''\
from physeval import register_metric, register_provider

register_provider("wrong")(42)
register_metric("wrong")("not a function")
'''

BROKEN_ENTRY_POINTS = """\
[project.entry-points."physeval.tasks"]
broken-task = "broken_physeval_plugin:not_a_task"

[project.entry-points."physeval.providers"]
broken = "broken_physeval_plugin:NOT_THERE"

[project.entry-points."physeval.metrics"]
broken-metric = "broken_physeval_plugin:NUMBER"

[project.entry-points."physeval.sandboxes"]
broken-sandbox = "broken_physeval_plugin:not_a_task"
"""

BROKEN = '''\
"""A plugin whose entry points point at the wrong things."""

NUMBER = 42


def not_a_task() -> None:
    """A function, where a Task subclass belongs."""
'''


def _package(root: Path, name: str, module: str, entry_points: str, files: dict[str, str]) -> Path:
    where = root / name
    (where / module).mkdir(parents=True)
    (where / "pyproject.toml").write_text(PYPROJECT.format(name=name, module=module, entry_points=entry_points))
    (where / module / "py.typed").write_text("")
    for file, text in files.items():
        (where / module / file).write_text(text)
    return where


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with both plugin packages pip-installed (built from source)."""
    root = tmp_path_factory.mktemp("plugin")
    env_dir = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=300)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    source = Path(physeval.__file__).resolve().parents[1]  # physeval's src folder (py.typed beside it)
    Path(purelib, "physeval-dev.pth").write_text(f"{source}\n{sysconfig.get_paths()['purelib']}\n")
    demo = _package(root, "demo-physeval-plugin", "demo_physeval_plugin", DEMO_ENTRY_POINTS,
                    {"__init__.py": DEMO, "typed_use.py": TYPED, "backend.py": BACKEND})
    broken = _package(root, "broken-physeval-plugin", "broken_physeval_plugin", BROKEN_ENTRY_POINTS,
                      {"__init__.py": BROKEN})
    for package in (demo, broken):
        done = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-build-isolation",
                               "--no-index", "--quiet", str(package)], capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
    installed = subprocess.run([str(python), "-m", "pip", "list", "--format", "json", "--path", purelib],
                               capture_output=True, text=True, check=True).stdout
    assert {"demo-physeval-plugin", "broken-physeval-plugin"} <= {p["name"] for p in json.loads(installed)}
    return env_dir


def _physeval(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([str(venv / "bin" / "python"), "-m", "physeval", *args], capture_output=True, text=True,
                          timeout=600, cwd=cwd, env=env)


@pytest.mark.timeout(900)  # mypy over the plugin and physeval from scratch: about 50 s on a slow machine
def test_the_plugin_type_checks_against_the_installed_physeval(venv: Path, tmp_path: Path) -> None:
    mypy = [str(venv / "bin" / "python"), "-m", "mypy", "--strict", "--no-incremental", "--cache-dir",
            str(tmp_path / "cache")]
    done = subprocess.run([*mypy, "-p", "demo_physeval_plugin"], capture_output=True, text=True, timeout=900,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "missing library stubs or py.typed" not in done.stdout
    (tmp_path / "mistyped.py").write_text(MISTYPED)
    done = subprocess.run([*mypy, str(tmp_path / "mistyped.py")], capture_output=True, text=True, timeout=900,
                          cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.count("error: Value of type variable") == 2, done.stdout


def test_the_plugins_sandbox_backend_renders_from_the_command_line(venv: Path, tmp_path: Path) -> None:
    program = tmp_path / "scene.py"
    program.write_text("import sys\nopen(sys.argv[1], 'w').write('not a video')\n")
    done = _physeval(venv, "render", str(program), "--sandbox", "demo-nice", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr  # ran, and (as written) played no video
    render = json.loads(done.stdout[done.stdout.index("{"):])
    assert render["sandbox_mode"] == "demo-nice" and render["stage"] == "executable", render


def test_the_plugins_task_provider_and_metric_run_from_the_command_line(venv: Path, tmp_path: Path) -> None:
    listed = _physeval(venv, "tasks", cwd=tmp_path)
    assert listed.returncode == 0 and "demo-doubling" in listed.stdout, listed.stderr
    assert "broken-physeval-plugin" in listed.stderr  # the broken package is named, and hides nothing
    out = tmp_path / "run"
    done = _physeval(venv, "run", "demo-doubling", "--model", "demo/doubler", "--metrics", "demo-even",
                     "--out", str(out), "--no-progress", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = physeval.read_summary(out)
    assert summary.task == "demo-doubling" and summary.model == "demo/doubler"
    assert summary.metrics["accuracy"].value == 0.75 and summary.metrics["accuracy"].n == 4
    assert summary.metrics["even_accuracy"].value == 1.0 and summary.metrics["even_accuracy"].n == 2


@pytest.mark.parametrize(("args", "names"), [
    (("run", "broken-task", "--model", "demo/x"),
     ("'broken-physeval-plugin'", "broken-task = broken_physeval_plugin:not_a_task",
      "it should point to a subclass of physeval.tasks.Task")),
    (("run", "demo-doubling", "--model", "broken/x"),
     ("'broken-physeval-plugin'", "broken = broken_physeval_plugin:NOT_THERE", "cannot be imported",
      "it should point to a ModelAPI class or factory")),
    (("run", "demo-doubling", "--model", "demo/x", "--metrics", "broken-metric"),
     ("'broken-physeval-plugin'", "broken-metric = broken_physeval_plugin:NUMBER",
      "it should point to a function (outcomes")),
    (("render", "scene.py", "--sandbox", "broken-sandbox"),
     ("'broken-physeval-plugin'", "broken-sandbox = broken_physeval_plugin:not_a_task",
      "it should point to a subclass of physeval.scenes.sandbox.backend.Backend")),
])
def test_a_wrong_entry_point_is_one_line_naming_the_plugin_and_what_it_should_point_to(
        venv: Path, tmp_path: Path, args: tuple[str, ...], names: tuple[str, ...]) -> None:
    (tmp_path / "scene.py").write_text("print('hello')\n")
    extra = ("--out", str(tmp_path / "run"), "--no-progress") if args[0] == "run" else ()
    done = _physeval(venv, *args, *extra, cwd=tmp_path)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, done.stderr
    [line] = [line for line in lines if "broken-physeval-plugin" in line]
    assert all(part in line for part in names), line
    assert "Traceback" not in done.stderr and not (tmp_path / "run").exists()


def test_the_installed_package_ships_its_type_marker() -> None:
    assert (Path(physeval.__file__).parent / "py.typed").is_file()
    text = textwrap.dedent((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    assert '"py.typed"' in text
