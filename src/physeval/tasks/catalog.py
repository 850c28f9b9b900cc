"""The built-in tasks by name, known without importing them, and how names are spelled.

Why: ``physeval tasks``, ``physeval run --help`` and name checks must answer at once, and each
task module pulls in its track (SymPy, pint, the scene stack...). This table says which module
registers each built-in task, with the facts ``physeval tasks`` shows; a test holds it equal
to the classes themselves. Names are accepted in every spelling people use: ``bank-numeric``,
``bank_numeric`` (inspect's), ``physeval/bank_numeric`` (an inspect registry name), any case.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

__all__ = ["TaskEntry", "BUILTIN_TASKS", "DEFAULT_TASK", "canonical_task_name", "closest_task_names"]

DEFAULT_TASK = "bank-numeric"
"""The task ``physeval run`` runs when none is named (``physeval.flow.spec.DEFAULT_TASK`` is this one)."""


@dataclass(frozen=True)
class TaskEntry:
    """What the command line knows of a built-in task before importing it."""

    name: str
    module: str
    track: str
    dynamic: bool
    description: str


BUILTIN_TASKS: dict[str, TaskEntry] = {entry.name: entry for entry in (
    TaskEntry("abench-a", "physeval.tasks.abench", "numeric", False,
              "ABench-Physics Phy_A: 400 static numeric problems (--data Phy_A_fixed_400.csv)"),
    TaskEntry("abench-b", "physeval.tasks.abench", "numeric", True,
              "ABench-Physics Phy_B: 100 dynamic problems x 4 variants (--data Phy_B_dynamic_100.csv); "
              "--fresh N new variants per problem"),
    TaskEntry("bank-numeric", "physeval.tasks.bank", "numeric", True,
              "physeval's original numeric bank: 65 templates x --variants N (default 4), offline"),
    TaskEntry("bank-scene", "physeval.tasks.scene", "scene", False,
              "physeval's original scene bank: 70 scenarios, 5 domains (--judge openai/VLM)"),
    TaskEntry("bank-symbolic", "physeval.tasks.phybench", "symbolic", False,
              "physeval's original symbolic bank: 34 templates, accuracy + EED + dimension check, offline"),
    TaskEntry("jsonl", "physeval.tasks.jsonl", "numeric", False,
              "your own dataset: --data FILE.jsonl of {id, question, answer, [unit], [tags]}; -T kind=symbolic"),
    TaskEntry("phybench", "physeval.tasks.phybench", "symbolic", False,
              "PHYBench: 100 symbolic problems, accuracy + EED (--data PHYBench-fullques_v1.json)"),
    TaskEntry("phybench-poison", "physeval.probes.poison", "symbolic", False,
              "PHYBench CoT poisoning probe: continue a poisoned partial solution (--data PHYBench JSON)"),
    TaskEntry("simuscene", "physeval.tasks.scene", "scene", False,
              "SimuScene code-to-video scenes (--data FILE.json|jsonl; --judge openai/VLM)"),
)}


def canonical_task_name(name: str) -> str:
    """``name`` as the registry spells it: no ``physeval/`` prefix, hyphens, lower case.

    A file task (``path/to/file.py:Class``) is returned unchanged.
    """
    if ":" in name and name.split(":", 1)[0].endswith(".py"):
        return name
    text = name.strip()
    if text.lower().startswith("physeval/"):
        text = text[len("physeval/"):]
    return text.replace("_", "-").lower()


def closest_task_names(name: str, known: list[str]) -> list[str]:
    """Up to three known names close to ``name`` (already canonical), for "did you mean"."""
    return difflib.get_close_matches(name, known, n=3, cutoff=0.5)
