"""Scene tasks: ``simuscene`` (``--data`` a SimuScene JSON/JSONL file) and ``bank-scene`` (the
original scenarios shipped with physeval), on the scene track (:mod:`physeval.tasks.tracks.scene`).
"""

from __future__ import annotations

from physeval.problems import Problem
from physeval.scenes.bank_data import load_scene_bank
from physeval.scenes.data import load_simuscene
from physeval.tasks.base import TaskError
from physeval.tasks.registry import register_task
from physeval.tasks.tracks.scene import SceneGrade, SceneOptions, SceneTask

__all__ = ["SceneGrade", "SceneTask", "SceneOptions", "SimuScene", "BankScene"]


@register_task
class SimuScene(SceneTask):
    """SimuScene records from ``--data`` (JSON list or JSONL); disabled and malformed records are
    skipped and counted."""

    name = "simuscene"
    description = "SimuScene code-to-video scenes (--data FILE.json|jsonl; --judge openai/VLM)"

    def load(self) -> list[Problem]:
        """The SimuScene records of ``--data``; disabled and malformed ones are skipped and counted."""
        if self.data is None:
            raise TaskError("simuscene needs --data: a SimuScene JSON list or JSONL file")
        loaded = load_simuscene(self.data)
        self.load_report = "\n".join([loaded.summary(), *loaded.messages[:50]])
        return list(loaded.problems)


@register_task
class BankScene(SceneTask):
    """The original scenarios shipped with physeval (five domains, levels 1-3)."""

    name = "bank-scene"
    description = "physeval's original scene bank: 70 scenarios, 5 domains (--judge openai/VLM)"

    def load(self) -> list[Problem]:
        """The 70 original scenarios shipped with physeval."""
        return load_scene_bank()


