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
    "evaluate": "physeval.flow.spec", "score_responses": "physeval.flow.score",
    "RunSpec": "physeval.flow.spec", "run": "physeval.flow.spec", "regrade_run": "physeval.flow.regrade",
    "RunMeta": "physeval.store", "RunSummary": "physeval.summary", "read_summary": "physeval.summary",
    "RunConfig": "physeval.flow.config", "run_task": "physeval.flow.execute",
    "RunStore": "physeval.store", "ResponseCache": "physeval.cache",
    # models
    "Completion": "physeval.models.base", "Model": "physeval.models.base", "ModelError": "physeval.models.base",
    "OpenAICompatibleModel": "physeval.models.openai_compat", "LocalModel": "physeval.models.local",
    "model_from_spec": "physeval.models.spec", "GenerateConfig": "physeval.models.base",
    "RetryingModel": "physeval.models.retry", "RetryPolicy": "physeval.models.retry",
    "register_provider": "physeval.models.registry", "ModelAPI": "physeval.models.base",
    # errors
    "PhysevalError": "physeval.errors", "UserError": "physeval.errors", "RunAborted": "physeval.errors",
    # tasks
    "Task": "physeval.tasks.base", "get_task": "physeval.tasks.registry", "register_task": "physeval.tasks.registry",
    "task_names": "physeval.tasks.registry", "TaskOptions": "physeval.tasks.options", "option": "physeval.tasks.options",
    "ChoiceTask": "physeval.tasks.tracks.choice", "NumericTask": "physeval.tasks.tracks.numeric",
    # metrics
    "pass_at_k": "physeval.metrics", "Metric": "physeval.metrics", "graded_outcomes": "physeval.graded",
    "MetricSet": "physeval.metrics", "register_metric": "physeval.metrics", "MetricFunction": "physeval.metrics",
    "reduce_metric": "physeval.metrics", "item_fraction": "physeval.metrics", "metric_from_values": "physeval.metrics",
    "breakdown_metrics": "physeval.metrics", "accuracy_metrics": "physeval.metrics",
    "Registry": "physeval.registry", "PluginError": "physeval.registry",
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


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs (``X as X``: an explicit re-export)
    from physeval.answers.choice import (
        extract_choice as extract_choice,
    )
    from physeval.answers.extract import (
        extract_final_answer as extract_final_answer,
    )
    from physeval.cache import (
        ResponseCache as ResponseCache,
    )
    from physeval.errors import (
        PhysevalError as PhysevalError,
    )
    from physeval.errors import (
        RunAborted as RunAborted,
    )
    from physeval.errors import (
        UserError as UserError,
    )
    from physeval.flow.config import (
        RunConfig as RunConfig,
    )
    from physeval.flow.execute import (
        run_task as run_task,
    )
    from physeval.flow.regrade import (
        regrade_run as regrade_run,
    )
    from physeval.flow.score import (
        score_responses as score_responses,
    )
    from physeval.flow.spec import (
        RunSpec as RunSpec,
    )
    from physeval.flow.spec import (
        evaluate as evaluate,
    )
    from physeval.flow.spec import (
        run as run,
    )
    from physeval.graded import (
        graded_outcomes as graded_outcomes,
    )
    from physeval.grading.choice import (
        grade_choice as grade_choice,
    )
    from physeval.grading.dimensions import (
        check_dimensions as check_dimensions,
    )
    from physeval.grading.eed import (
        EEDResult as EEDResult,
    )
    from physeval.grading.eed import (
        eed as eed,
    )
    from physeval.grading.numeric import (
        NumericGrade as NumericGrade,
    )
    from physeval.grading.numeric import (
        grade_numeric as grade_numeric,
    )
    from physeval.grading.symbolic import (
        SymbolicGrade as SymbolicGrade,
    )
    from physeval.grading.symbolic import (
        grade_symbolic as grade_symbolic,
    )
    from physeval.grading.symbolic import (
        grade_symbolic_many as grade_symbolic_many,
    )
    from physeval.metrics import (
        Metric as Metric,
    )
    from physeval.metrics import (
        MetricFunction as MetricFunction,
    )
    from physeval.metrics import (
        MetricSet as MetricSet,
    )
    from physeval.metrics import (
        accuracy_metrics as accuracy_metrics,
    )
    from physeval.metrics import (
        breakdown_metrics as breakdown_metrics,
    )
    from physeval.metrics import (
        item_fraction as item_fraction,
    )
    from physeval.metrics import (
        metric_from_values as metric_from_values,
    )
    from physeval.metrics import (
        pass_at_k as pass_at_k,
    )
    from physeval.metrics import (
        reduce_metric as reduce_metric,
    )
    from physeval.metrics import (
        register_metric as register_metric,
    )
    from physeval.models.base import (
        Completion as Completion,
    )
    from physeval.models.base import (
        GenerateConfig as GenerateConfig,
    )
    from physeval.models.base import (
        Model as Model,
    )
    from physeval.models.base import (
        ModelAPI as ModelAPI,
    )
    from physeval.models.base import (
        ModelError as ModelError,
    )
    from physeval.models.local import (
        LocalModel as LocalModel,
    )
    from physeval.models.openai_compat import (
        OpenAICompatibleModel as OpenAICompatibleModel,
    )
    from physeval.models.registry import (
        register_provider as register_provider,
    )
    from physeval.models.retry import (
        RetryingModel as RetryingModel,
    )
    from physeval.models.retry import (
        RetryPolicy as RetryPolicy,
    )
    from physeval.models.spec import (
        model_from_spec as model_from_spec,
    )
    from physeval.problems import (
        Grade as Grade,
    )
    from physeval.problems import (
        Outcome as Outcome,
    )
    from physeval.problems import (
        Problem as Problem,
    )
    from physeval.registry import (
        PluginError as PluginError,
    )
    from physeval.registry import (
        Registry as Registry,
    )
    from physeval.rewards import (
        numeric_reward as numeric_reward,
    )
    from physeval.rewards import (
        symbolic_reward as symbolic_reward,
    )
    from physeval.rewards import (
        trl_reward as trl_reward,
    )
    from physeval.sample_outcomes import (
        SampleOutcome as SampleOutcome,
    )
    from physeval.scenes.frames import (
        Frame as Frame,
    )
    from physeval.scenes.frames import (
        sample_frames as sample_frames,
    )
    from physeval.scenes.judge import (
        JudgeVerdict as JudgeVerdict,
    )
    from physeval.scenes.judge import (
        judge_video as judge_video,
    )
    from physeval.scenes.render import (
        Render as Render,
    )
    from physeval.scenes.render import (
        render_program as render_program,
    )
    from physeval.store import (
        RunMeta as RunMeta,
    )
    from physeval.store import (
        RunStore as RunStore,
    )
    from physeval.summary import (
        RunSummary as RunSummary,
    )
    from physeval.summary import (
        read_summary as read_summary,
    )
    from physeval.tasks.base import (
        Task as Task,
    )
    from physeval.tasks.options import (
        TaskOptions as TaskOptions,
    )
    from physeval.tasks.options import (
        option as option,
    )
    from physeval.tasks.registry import (
        get_task as get_task,
    )
    from physeval.tasks.registry import (
        register_task as register_task,
    )
    from physeval.tasks.registry import (
        task_names as task_names,
    )
    from physeval.tasks.tracks.choice import (
        ChoiceTask as ChoiceTask,
    )
    from physeval.tasks.tracks.numeric import (
        NumericTask as NumericTask,
    )
    from physeval.variation.audit import (
        audit_problems as audit_problems,
    )
    from physeval.variation.bank import (
        bank_problems as bank_problems,
    )
    from physeval.variation.bank import (
        vary as vary,
    )
    from physeval.variation.solution import (
        load_template as load_template,
    )
