"""The graders as reward functions for RL training (TRL and verl signatures).

The same pure graders that score evaluations score rollouts, so a policy is trained on
exactly the judgement it is later evaluated with. Rewards are deterministic floats; a
response that cannot be read earns 0 and never raises.

TRL (``GRPOTrainer(reward_funcs=[...])``): a callable ``(prompts, completions, **columns) ->
list[float]`` where ``completions`` are strings or chat-message lists and the dataset's
columns arrive as keyword lists::

    from physeval.rewards import trl_reward
    trainer = GRPOTrainer(..., reward_funcs=[trl_reward("numeric", reference_column="answer")])

verl (``custom_reward_function.path=physeval/rewards.py name=compute_score``)::

    compute_score(data_source, solution_str, ground_truth, extra_info=None) -> dict
"""

from __future__ import annotations

from typing import Any, Callable, Literal, Sequence

__all__ = ["numeric_reward", "symbolic_reward", "trl_reward", "compute_score"]

Kind = Literal["numeric", "symbolic"]


def numeric_reward(response: str, reference: str, question: str = "", *, rel_tol: float = 0.01,
                   format_weight: float = 0.0) -> float:
    """1.0 for a correct quantity (units converted, 1 % tolerance), else 0.0.

    With ``format_weight`` w > 0 the reward is (1 - w) * correct + w * format, where format is
    1 when the asked significant figures and scientific notation were respected.
    """
    from physeval.grading.numeric import grade_numeric

    grade = grade_numeric(response, reference, question, rel_tol=rel_tol)
    correct = 1.0 if grade.correct else 0.0
    if format_weight <= 0:
        return correct
    format_ok = 1.0 if (grade.sig_figs_ok is not False and grade.scientific_ok is not False) else 0.0
    return (1.0 - format_weight) * correct + format_weight * format_ok


def symbolic_reward(response: str, reference: str, *, partial_credit: bool = False) -> float:
    """1.0 for an expression equivalent to the reference, else 0.0; with ``partial_credit``
    the EED score / 100 (0-1), which rewards answers that are structurally close."""
    from physeval.grading.symbolic import grade_symbolic

    grade = grade_symbolic(response, reference)
    if grade.correct:
        return 1.0
    return float(grade.eed_score or 0.0) / 100.0 if partial_credit else 0.0


def _text(completion: Any) -> str:
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion and isinstance(completion[-1], dict):
        return str(completion[-1].get("content") or "")
    if isinstance(completion, dict):
        return str(completion.get("content") or "")
    return str(completion or "")


def trl_reward(kind: Kind = "numeric", *, reference_column: str = "answer", question_column: str = "question",
               partial_credit: bool = False, rel_tol: float = 0.01) -> Callable[..., list[float]]:
    """A TRL reward function reading references from the dataset column ``reference_column``."""
    if kind not in ("numeric", "symbolic"):
        raise ValueError(f"kind must be 'numeric' or 'symbolic', not {kind!r}")

    def reward(prompts: Sequence[Any], completions: Sequence[Any], **columns: Any) -> list[float]:
        references = columns.get(reference_column)
        if references is None:
            raise KeyError(f"the dataset has no column {reference_column!r} (columns: {sorted(columns)})")
        questions = columns.get(question_column) or [""] * len(completions)
        out = []
        for completion, reference, question in zip(completions, references, questions):
            if kind == "numeric":
                out.append(numeric_reward(_text(completion), str(reference), str(question or ""), rel_tol=rel_tol))
            else:
                out.append(symbolic_reward(_text(completion), str(reference), partial_credit=partial_credit))
        return out

    reward.__name__ = f"physeval_{kind}_reward"
    return reward


def compute_score(data_source: str, solution_str: str, ground_truth: str,
                  extra_info: dict[str, Any] | None = None) -> dict[str, Any]:
    """verl's custom reward signature. ``data_source`` picks the grader: names containing
    ``phybench`` or ``symbolic`` use the symbolic grader, everything else the numeric one;
    ``extra_info["question"]`` supplies the question (for the required unit).

    Returns ``{"score", "acc", "outcome"}`` (verl logs the extra keys).
    """
    extra_info = extra_info or {}
    source = (data_source or "").lower()
    if "phybench" in source or "symbolic" in source:
        from physeval.grading.symbolic import grade_symbolic

        grade = grade_symbolic(solution_str, ground_truth)
        score = 1.0 if grade.correct else float(grade.eed_score or 0.0) / 100.0 * float(
            extra_info.get("partial_credit", 0.0))
    else:
        from physeval.grading.numeric import grade_numeric

        grade = grade_numeric(solution_str, ground_truth, str(extra_info.get("question", "")))
        score = 1.0 if grade.correct else 0.0
    return {"score": score, "acc": bool(grade.correct), "outcome": grade.outcome}
