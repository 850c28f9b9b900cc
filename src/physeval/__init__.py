"""physeval: evaluate language models on physics, and use the same graders as RL rewards.

The public surface is re-exported here and loaded lazily (``import physeval`` does not pull
in SymPy, pint or PyAV until a name that needs them is used)::

    from physeval import grade_numeric, grade_symbolic, eed, evaluate
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    # vocabulary
    "Problem": "physeval.problems", "Grade": "physeval.problems", "Outcome": "physeval.problems",
    # graders
    "grade_numeric": "physeval.grading.numeric", "NumericGrade": "physeval.grading.numeric",
    "extract_final_answer": "physeval.answers.extract",
    # running
    "evaluate": "physeval.evaluate", "score_responses": "physeval.evaluate",
    "RunConfig": "physeval.runner", "run_task": "physeval.runner",
    "RunStore": "physeval.store", "ResponseCache": "physeval.cache",
    # models
    "Completion": "physeval.models.base", "Model": "physeval.models.base", "ModelError": "physeval.models.base",
    "OpenAICompatibleModel": "physeval.models.openai_compat", "LocalModel": "physeval.models.local",
    "model_from_spec": "physeval.models.spec",
    # tasks
    "Task": "physeval.tasks.base", "get_task": "physeval.tasks.registry", "register_task": "physeval.tasks.registry",
    "task_names": "physeval.tasks.registry",
    # metrics
    "pass_at_k": "physeval.metrics", "Metric": "physeval.metrics",
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
    from physeval.answers.extract import extract_final_answer
    from physeval.cache import ResponseCache
    from physeval.evaluate import evaluate, score_responses
    from physeval.grading.numeric import NumericGrade, grade_numeric
    from physeval.metrics import Metric, pass_at_k
    from physeval.models.base import Completion, Model, ModelError
    from physeval.models.local import LocalModel
    from physeval.models.openai_compat import OpenAICompatibleModel
    from physeval.models.spec import model_from_spec
    from physeval.problems import Grade, Outcome, Problem
    from physeval.runner import RunConfig, run_task
    from physeval.store import RunStore
    from physeval.tasks.base import Task
    from physeval.tasks.registry import get_task, register_task, task_names
