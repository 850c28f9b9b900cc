"""The one record every reward returns: the number a trainer uses and why it is that number.

Why: a reward that is only a float cannot be logged, audited or debugged. Every batched
reward (numeric, symbolic, scene) returns a :class:`RewardResult` per rollout, and the trainer
adapters and the reward service take the float from it and log the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["RewardResult"]


@dataclass(frozen=True)
class RewardResult:
    """One rollout's reward and its explanation.

    Attributes:
        reward: The reward (0-1), or ``None`` when the rollout has no reference to score against
            (TRL skips ``None``; it is never a silent 0).
        correct: Whether the rollout is fully right (every label true for scenes).
        outcome: The grader's outcome (``correct``, ``wrong``, ``unparseable``, ``error``, ``timeout``,
            a scene render stage such as ``error`` or ``no_code``, or ``no_reference``).
        reason: One line saying why.
        pred: What was read from the rollout (the extracted answer or program), for verl's maj@N.
        explanation: Everything else worth logging, JSON-serialisable (for scenes: ``stage``,
            ``per_question``, ``votes``, ``judge_latency_s``, ``render``...).
    """

    reward: float | None
    correct: bool = False
    outcome: str = ""
    reason: str = ""
    pred: str = ""
    explanation: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """All fields as a JSON-serialisable dict."""
        return {"reward": self.reward, "correct": self.correct, "outcome": self.outcome, "reason": self.reason,
                "pred": self.pred, "explanation": self.explanation}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RewardResult:
        """The inverse of :meth:`to_dict` (the reward service's JSON)."""
        return cls(reward=data.get("reward"), correct=bool(data.get("correct")), outcome=str(data.get("outcome", "")),
                   reason=str(data.get("reason", "")), pred=str(data.get("pred", "")),
                   explanation=dict(data.get("explanation") or {}))
