"""A run flows one way through four rooms: plan -> record -> execute -> summarise.

The rooms are the modules of physeval/flow/; each may import only the rooms before it, ``--limit``
and ``--sample-strategy`` choose problems in one place, once per run, and no public name of
``physeval`` is hidden by a module of the same name (``physeval.evaluate`` was both).
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import physeval
from fixture_tasks import ArithmeticTask
from physeval.testing import ScriptedServer
from test_import_graph import import_graph

FLOW = "physeval.flow."

# Which room may import which (the front door and the two side doors call the rooms; a room
# calls only rooms before it: execution runs work items of the plan, nothing goes back up).
MAY_IMPORT = {
    "config": set(),
    "plan": {"config"},
    "record": {"config"},
    "execute": {"config", "plan"},
    "summarise": set(),
    "spec": {"config", "plan", "record", "execute", "summarise"},
    "score": {"plan", "record", "execute", "summarise"},
    "regrade": {"plan", "record", "execute", "summarise"},
}


def test_each_room_imports_only_the_rooms_before_it() -> None:
    graph = import_graph()
    rooms = {m.removeprefix(FLOW) for m in graph if m.startswith(FLOW)}
    assert rooms == set(MAY_IMPORT), "a module of physeval/flow/ that MAY_IMPORT does not place"
    back = [f"{room} -> {target.removeprefix(FLOW)}"
            for room in rooms for target in graph[FLOW + room]
            if target.startswith(FLOW) and target.removeprefix(FLOW) not in MAY_IMPORT[room]]
    assert back == []
    below = {m for m in graph if not m.startswith(FLOW) and m != "physeval"
             and any(t.startswith(FLOW) for t in graph[m]) and not m.startswith(("physeval.cli", "physeval.scene_builder",
                                                                                  "physeval.integrations"))}
    assert below == set(), "modules the run is built on import the run (a climb back up)"


def test_no_public_name_is_hidden_by_a_module_of_that_name() -> None:
    modules = {m.name.rsplit(".", 1)[-1] for m in pkgutil.iter_modules(physeval.__path__)}
    assert not modules & set(physeval._EXPORTS), "importing physeval.NAME would replace physeval.NAME"
    for info in pkgutil.walk_packages(physeval.__path__, "physeval."):
        if info.name.startswith(("physeval.integrations", "physeval.testing.")) or info.name.endswith("__main__"):
            continue
        importlib.import_module(info.name)
    assert callable(physeval.evaluate) and callable(physeval.run) and callable(physeval.score_responses)


def test_limit_and_the_sample_strategy_choose_once(arithmetic_server: ScriptedServer, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import physeval.flow.plan as plan

    calls = []
    real = plan.select_problems

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(kwargs or args[1:])
        return real(*args, **kwargs)

    monkeypatch.setattr(plan, "select_problems", counted)
    config = physeval.RunConfig(limit=3, sample_strategy="random", seed=4, samples=2, preflight=False,
                                use_cache=False)
    summary, result = physeval.evaluate(ArithmeticTask(n=12, variants=2), "openai/test",
                                        base_url=arithmetic_server.base_url, run_dir=tmp_path / "run",
                                        config=config, show_progress=False)
    assert len(calls) == 1  # 92a3499 chose three times: in the load, for the plan, and in the runner
    assert summary.counts.problems == 3 and result.planned == summary.counts.planned_samples == 3 * 2 * 2


def test_runs_started_at_the_same_moment_claim_folders_of_their_own(tmp_path: Path) -> None:
    """Six processes claim the same default folder at once (a sweep launched with ``&``): each gets
    its own (``mkdir`` is atomic), where choosing the name by looking gave several of them one folder
    and all but one stopped on its lock. No clock enters the verdict: whatever the interleaving,
    the six folders are distinct and made."""
    from concurrent.futures import ProcessPoolExecutor

    from physeval.flow.record import claim_run_dir

    preferred = tmp_path / "runs" / "20261207T021129Z_bank-numeric_vllm-m"
    with ProcessPoolExecutor(6) as pool:
        claimed = list(pool.map(claim_run_dir, [preferred] * 6))
    assert sorted(p.name for p in claimed) == sorted([preferred.name] + [f"{preferred.name}-{n}" for n in range(2, 7)])
    assert all(p.is_dir() and not any(p.iterdir()) for p in claimed)
