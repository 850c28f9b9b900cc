"""One rule decides which samples a metric receives (physeval.graded): every module that computes a
metric goes through it, and no error row reaches metric code.

The static part reads every module of physeval: a module that computes a metric must be listed in
:data:`METRIC_MODULES` with the way it receives outcomes; nothing but ``physeval/graded.py`` builds
a :class:`SampleOutcome` or filters rows on their status. Planted bypasses (the ones 92a3499 had)
must be found. The runtime part makes runs with failed requests and checks that every analysis
stands on the same n as their ``summary.json``.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

import pytest

from physeval import RunConfig, evaluate
from physeval.tasks.registry import get_task
from physeval.testing import Reply, Request, ScriptedModel

SRC = Path(__file__).resolve().parents[1] / "src" / "physeval"

# The building blocks that compute a metric (physeval.metrics), and a task's metrics() method.
METRIC_NAMES = frozenset({
    "problem_values", "reduce_metric", "metric_from_values", "accuracy_metrics", "rate_metrics", "dynamic_metrics",
    "majority_metrics", "mean_score_metric", "breakdown_metrics", "item_fraction", "item_pass_at", "item_majority",
    "item_mean_score", "bootstrap_ci", "pass_at_k", "paired_t",
})

# Every module that computes a metric, and how it receives its outcomes:
#   graded     - from physeval.graded (graded_outcomes / graded_rows)
#   run        - from an analysis Run (Run.outcomes() and Run.graded are graded_outcomes / graded_rows)
#   parameters - metric code: the outcomes are handed to it (a task's metrics(), the reductions)
#   one grade  - no metric: a scorer that turns the grade of one sample into another tool's score
#                (it reads ``grade.correct``; the metrics over those scores are in a module listed as graded)
METRIC_MODULES: dict[str, str] = {
    "metrics": "parameters",
    "stats": "graded",
    "flow.summarise": "graded",
    "analysis.robustness": "graded",
    "analysis.lengths": "graded",
    "analysis.paired": "run",
    "analysis.scaling": "run",
    "analysis.matched": "run",
    "analysis.outcomes": "every sample",
    "report.html.metric_plots": "run",
    "report.html.samples": "every sample",
    "integrations.logging": "graded",
    "integrations.inspect": "one grade",
    "integrations.inspect_metrics": "graded",
    "integrations.lm_eval": "graded",
    "integrations.lm_eval_export": "graded",
    "tasks.base": "parameters",
    "tasks.tracks.symbolic": "parameters",
    "tasks.tracks.scene": "parameters",
    "tasks.jsonl": "parameters",
    "probes.poison": "parameters",
    "probes.process_judge": "parameters",
}
"""``every sample``: not a metric but a count of how each sample ended (errors included, by design:
``why samples ended``) or the listing of every sample in the HTML report."""

# Packages whose modules read verdicts for an analysis: a verdict read there is a metric computed.
CONSUMERS = ("analysis.", "report.", "integrations.", "stats")

# Where comparing a row's status with "answered" is not a metric filter.
STATUS_CHECKS_ALLOWED = {"graded": "the rule itself",
                         "flow.execute": "resume: which stored rows are kept rather than asked again"}


def _sources() -> dict[str, str]:
    return {".".join(p.relative_to(SRC).with_suffix("").parts): p.read_text(encoding="utf-8")
            for p in sorted(SRC.rglob("*.py")) if p.name != "__init__.py"}


def _computes_a_metric(tree: ast.AST, module: str) -> bool:
    consumer = module.startswith(CONSUMERS)
    for node in ast.walk(tree):
        if consumer and isinstance(node, ast.Attribute) and node.attr == "correct":
            return True
        if isinstance(node, ast.Name) and node.id in METRIC_NAMES:
            return True
        if isinstance(node, ast.alias) and node.name in METRIC_NAMES:
            return True
        if isinstance(node, ast.Attribute) and node.attr in METRIC_NAMES:
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("metrics", "measure"):
            return True
    return False


def _filters_on_status(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            on_status = any(isinstance(s, ast.Attribute) and s.attr == "status" for s in sides)
            answered = any(isinstance(s, ast.Constant) and s.value == "answered" for s in sides)
            if on_status and answered:
                return True
    return False


def _builds_outcomes(tree: ast.AST) -> bool:
    return any(isinstance(node, ast.Call) and (getattr(node.func, "id", None) == "SampleOutcome"
                                               or getattr(node.func, "attr", None) == "SampleOutcome")
               for node in ast.walk(tree))


def _imports_graded(tree: ast.AST) -> bool:
    return any(isinstance(node, ast.ImportFrom) and node.module == "physeval.graded" for node in ast.walk(tree))


def _uses_run(tree: ast.AST) -> bool:
    return any((isinstance(node, ast.Attribute) and node.attr in ("outcomes", "graded")) for node in ast.walk(tree))


def bypasses(sources: Mapping[str, str]) -> list[str]:
    """Every way the modules in ``sources`` (module name -> source) get round the graded-outcome rule."""
    found = []
    for module, text in sources.items():
        tree = ast.parse(text)
        if module != "graded" and _builds_outcomes(tree):
            found.append(f"{module} builds SampleOutcome itself (only physeval.graded turns samples into outcomes)")
        if module not in STATUS_CHECKS_ALLOWED and _filters_on_status(tree):
            found.append(f"{module} filters rows on status == 'answered' itself (use physeval.graded)")
        computes = _computes_a_metric(tree, module)
        how = METRIC_MODULES.get(module)
        if computes and how is None:
            found.append(f"{module} computes a metric but is not listed in METRIC_MODULES with how it gets outcomes")
        elif how == "graded" and not _imports_graded(tree):
            found.append(f"{module} computes a metric without physeval.graded")
        elif how == "run" and not (_uses_run(tree) or _imports_graded(tree)):
            found.append(f"{module} computes a metric without Run.outcomes()/Run.graded or physeval.graded")
    return found


def test_every_module_that_computes_a_metric_receives_graded_outcomes() -> None:
    sources = _sources()
    assert bypasses(sources) == []
    listed = {m for m in METRIC_MODULES if m in sources}
    computing = {m for m, text in sources.items() if _computes_a_metric(ast.parse(text), m)}
    assert listed == computing, f"METRIC_MODULES lists modules that compute no metric: {sorted(listed - computing)}"


@pytest.mark.parametrize(("module", "old", "new", "found"), [
    # 92a3499's stats.py: every stored row became an outcome, an error a zero
    ("stats", "outcomes = graded_outcomes(rows, recorded_plan(store, rows))",
     "outcomes = [SampleOutcome(r.problem_id, r.variant, r.sample, bool(r.correct)) for r in rows]",
     "stats builds SampleOutcome itself"),
    # a filter of its own instead of the rule
    ("analysis.lengths", "answered = graded_rows(rows)", "answered = [r for r in rows if r.status == 'answered']",
     "analysis.lengths filters rows on status"),
    # a new module that computes a metric without saying how it gets its outcomes
    ("analysis.planted", None, "from physeval.metrics import reduce_metric\n", "analysis.planted computes a metric"),
    # a listed module that stops going through the rule
    ("stats", "from physeval.graded import graded_outcomes\n", "", "stats computes a metric without physeval.graded"),
])
def test_a_planted_bypass_is_found(module: str, old: str | None, new: str, found: str) -> None:
    sources = _sources()
    if old is None:
        sources[module] = new
    else:
        assert old in sources[module], f"the planted bypass no longer fits {module}: update this test"
        sources[module] = sources[module].replace(old, new)
    assert any(found in b for b in bypasses(sources)), bypasses(sources)


# -- at run time: every analysis stands on the n of summary.json ------------------------------------
SKILL = {"a": 0.8, "b": 0.4}


def _script(model: str, problems: list, fail: set[tuple[str, str]]):  # type: ignore[no-untyped-def]
    import sys

    sys.path.insert(0, str(Path(__file__).parent / "analysis"))
    from scripted_runs import _problem_of, numeric_script

    good = numeric_script("strong" if SKILL[model] > 0.5 else "weak", problems)

    def reply(request: Request) -> Reply:
        problem = _problem_of(request.prompt, problems)
        if problem is not None and (problem.id, problem.variant) in fail:
            return Reply.error(400)  # failed for good: an error row, never a zero
        return good(request)
    return reply


@pytest.fixture(scope="module")
def runs_with_errors(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("graded-n")
    out = {}
    for track, name, options in (("numeric", "bank-numeric", {"variants": 2}),
                                 ("symbolic", "bank-symbolic", {"grading_processes": 0})):
        task = get_task(name, **options)
        problems = task.load()
        ids = list(dict.fromkeys(p.id for p in problems))[:6]
        # model a: every request of the first problem fails, and one variant of the second
        fail = {(p.id, p.variant) for p in problems if p.id == ids[0]} | {(ids[1], "1")}
        for model in SKILL:
            run_dir = root / f"{track}-{model}"
            evaluate(task, ScriptedModel(_script(model, problems, fail if model == "a" else set()),
                                         name=f"{track}-{model}"),
                     run_dir=run_dir, config=RunConfig(samples=2, limit=6, max_connections=1, use_cache=False,
                                                       preflight=False, max_consecutive_errors=0),
                     problems=problems, show_progress=False, model_label=f"model-{model}")
            out[f"{track}-{model}"] = run_dir
    return out


def test_stats_and_every_analysis_stand_on_the_summarys_n(runs_with_errors: dict[str, Path]) -> None:
    from physeval.analysis.leaderboard import leaderboards
    from physeval.analysis.lengths import run_lengths
    from physeval.analysis.paired import compare_runs
    from physeval.analysis.runs import load_runs
    from physeval.analysis.scaling import scaling_curves
    from physeval.integrations.logging import scalars
    from physeval.stats import sample_efficiency
    from physeval.summary import read_summary

    a, b = runs_with_errors["numeric-a"], runs_with_errors["numeric-b"]
    summary = read_summary(a)
    assert summary.counts.errors > 0 and read_summary(b).counts.errors == 0
    n = summary.metrics["accuracy"].n
    assert n == 5  # 6 problems, one of which measured nothing
    assert summary.metrics["dynamic_accuracy"].n == 4  # and one more lacks a graded variant

    [pair] = sample_efficiency([a, b])
    assert pair.problems == n  # 92a3499 paired 6: the failed problem counted as a zero
    runs = load_runs([a, b])
    assert compare_runs(runs, "accuracy").pairs[0].n == n
    assert compare_runs(runs, "dynamic_accuracy").pairs[0].n == summary.metrics["dynamic_accuracy"].n
    assert scaling_curves(runs[0]).pass_at[-1].n == summary.metrics["pass@2"].n
    lengths = next(s for s in run_lengths(runs) if s.label == "model-model-a".removeprefix("model-"))
    assert lengths.completion is not None and lengths.completion.n == summary.counts.graded
    assert sum(b.n for b in lengths.accuracy_by_length) == summary.counts.graded
    [board] = leaderboards(runs)
    cells = {row.model: row.cells for row in board.rows}
    assert {c.n for c in cells["model-a"] if c is not None} <= {n, summary.metrics["dynamic_accuracy"].n,
                                                                 summary.metrics["static_accuracy"].n}
    assert scalars(summary)["accuracy"] == summary.metrics["accuracy"].value


def test_eed_robustness_stands_on_the_summarys_n(runs_with_errors: dict[str, Path]) -> None:
    from physeval.analysis.robustness import metric_robustness
    from physeval.summary import read_summary

    a, b = runs_with_errors["symbolic-a"], runs_with_errors["symbolic-b"]
    n = read_summary(a).metrics["accuracy"].n
    assert n == 5
    published, *_ = metric_robustness([a, b], labels=["a", "b"])
    assert published.efficiency[0][2] == n


def test_an_unscored_inspect_sample_never_reaches_a_metric() -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai.scorer import SampleScore, Score

    from physeval.integrations.inspect import outcomes_from_scores

    meta = {"problem_id": "1", "variant": "0", "meta": {}}
    scores = [SampleScore(score=Score(value="C", metadata={"correct": True, "epoch": 1, "outcome": "correct"}),
                          sample_id="1", sample_metadata=meta),
              SampleScore(score=Score.unscored(metadata={"correct": False, "epoch": 2, "outcome": "error"}),
                          sample_id="1", sample_metadata=meta)]
    assert [(o.sample, o.correct) for o in outcomes_from_scores(scores)] == [(0, True)]
