"""physeval: evaluate language models on physics, and use the same graders as RL rewards.

The public surface is re-exported here and loaded lazily (``import physeval`` does not pull
in SymPy, pint or PyAV until a name that needs them is used)::

    from physeval import grade_numeric, grade_symbolic, eed, evaluate
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from physeval.version import __version__

_EXPORTS: dict[str, str] = {
    # vocabulary
    "Problem": "physeval.problems", "Grade": "physeval.problems", "Outcome": "physeval.problems",
    # graders
    "grade_numeric": "physeval.grading.numeric", "NumericGrade": "physeval.grading.numeric",
    "grade_symbolic": "physeval.grading.symbolic", "grade_symbolic_many": "physeval.grading.symbolic",
    "SymbolicGrade": "physeval.grading.symbolic", "eed": "physeval.grading.eed", "EEDResult": "physeval.grading.eed",
    "check_dimensions": "physeval.grading.dimensions",
    # scenes
    "render_program": "physeval.scenes.render", "Render": "physeval.scenes.render",
    "sample_frames": "physeval.scenes.frames", "Frame": "physeval.scenes.frames",
    "judge_video": "physeval.scenes.judge", "JudgeVerdict": "physeval.scenes.judge",
    # dynamic problems
    "vary": "physeval.variation.bank", "load_template": "physeval.variation.solution",
    "bank_problems": "physeval.variation.bank", "audit_problems": "physeval.variation.audit",
    # rewards
    "numeric_reward": "physeval.rewards", "symbolic_reward": "physeval.rewards", "trl_reward": "physeval.rewards",
    "extract_final_answer": "physeval.answers.extract",
    "grade_choice": "physeval.grading.choice", "extract_choice": "physeval.answers.choice",
    # running
    "evaluate": "physeval.evaluate", "score_responses": "physeval.evaluate",
    "RunSpec": "physeval.evaluate", "run": "physeval.evaluate", "regrade_run": "physeval.regrade",
    "RunMeta": "physeval.store", "RunSummary": "physeval.summary", "read_summary": "physeval.summary",
    "RunConfig": "physeval.runner", "run_task": "physeval.runner",
    "RunStore": "physeval.store", "ResponseCache": "physeval.cache",
    # models
    "Completion": "physeval.models.base", "Model": "physeval.models.base", "ModelError": "physeval.models.base",
    "OpenAICompatibleModel": "physeval.models.openai_compat", "LocalModel": "physeval.models.local",
    "model_from_spec": "physeval.models.spec", "GenerateConfig": "physeval.models.base",
    "RetryingModel": "physeval.models.retry", "RetryPolicy": "physeval.models.retry",
    "register_provider": "physeval.models.registry",
    # errors
    "PhysevalError": "physeval.errors", "UserError": "physeval.errors", "RunAborted": "physeval.errors",
    # tasks
    "Task": "physeval.tasks.base", "get_task": "physeval.tasks.registry", "register_task": "physeval.tasks.registry",
    "task_names": "physeval.tasks.registry", "TaskOptions": "physeval.tasks.options", "option": "physeval.tasks.options",
    "ChoiceTask": "physeval.tasks.tracks.choice", "NumericTask": "physeval.tasks.tracks.numeric",
    # metrics
    "pass_at_k": "physeval.metrics", "Metric": "physeval.metrics", "graded_outcomes": "physeval.graded",
    "SampleOutcome": "physeval.sample_outcomes",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'physeval' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from physeval.answers.choice import extract_choice
    from physeval.answers.extract import extract_final_answer
    from physeval.cache import ResponseCache
    from physeval.errors import PhysevalError, RunAborted, UserError
    from physeval.evaluate import RunSpec, evaluate, run, score_responses
    from physeval.graded import graded_outcomes
    from physeval.grading.choice import grade_choice
    from physeval.grading.dimensions import check_dimensions
    from physeval.grading.eed import EEDResult, eed
    from physeval.grading.numeric import NumericGrade, grade_numeric
    from physeval.grading.symbolic import SymbolicGrade, grade_symbolic, grade_symbolic_many
    from physeval.metrics import Metric, pass_at_k
    from physeval.models.base import Completion, GenerateConfig, Model, ModelError
    from physeval.models.local import LocalModel
    from physeval.models.openai_compat import OpenAICompatibleModel
    from physeval.models.registry import register_provider
    from physeval.models.retry import RetryingModel, RetryPolicy
    from physeval.models.spec import model_from_spec
    from physeval.problems import Grade, Outcome, Problem
    from physeval.regrade import regrade_run
    from physeval.rewards import numeric_reward, symbolic_reward, trl_reward
    from physeval.runner import RunConfig, run_task
    from physeval.sample_outcomes import SampleOutcome
    from physeval.scenes.frames import Frame, sample_frames
    from physeval.scenes.judge import JudgeVerdict, judge_video
    from physeval.scenes.render import Render, render_program
    from physeval.store import RunMeta, RunStore
    from physeval.summary import RunSummary, read_summary
    from physeval.tasks.base import Task
    from physeval.tasks.options import TaskOptions, option
    from physeval.tasks.registry import get_task, register_task, task_names
    from physeval.tasks.tracks.choice import ChoiceTask
    from physeval.tasks.tracks.numeric import NumericTask
    from physeval.variation.audit import audit_problems
    from physeval.variation.bank import bank_problems, vary
    from physeval.variation.solution import load_template
