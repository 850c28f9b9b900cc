"""The optional LLM fallback for symbolic answers whose equivalence is ``undecided``.

physeval's equivalence check never guesses: past its operation budgets it says ``undecided``
(:mod:`physeval.grading.symbolic`). With ``equivalence_judge`` set (off by default), such an
answer -- and only such an answer -- is shown to a judge model with the reference, which answers
``{"equivalent": true|false, "justification": ...}`` (structured output first). A readable
verdict replaces the undecided one, and the grade records that it came from a judge
(``equivalence_by = "judge"``, the judge's name, reply and justification); every other verdict
keeps ``equivalence_by = "checker"``. An unreadable or failed judge leaves the grade undecided,
with the judge's failure recorded.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["SCHEMA", "EquivalenceVerdict", "judge_equivalence"]

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"equivalent": {"type": "boolean"}, "justification": {"type": "string"}},
    "required": ["equivalent", "justification"],
    "additionalProperties": False,
}

_TRUE = {"true", "yes", "equivalent", "1"}
_FALSE = {"false", "no", "not equivalent", "0"}


@dataclass(frozen=True)
class EquivalenceVerdict:
    """A judge's equivalence verdict: ``equivalent`` is ``None`` when none could be read."""

    equivalent: bool | None
    outcome: str
    judge: str = ""
    justification: str = ""
    method: str = "none"
    structured: bool = False
    error: str | None = None
    reply: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict of every field."""
        return asdict(self)


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value.strip().strip(".").lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    return None


async def judge_equivalence(judge: Any, reference: str, candidate: str, *, prompt: str | None = None,
                            max_tokens: int = 1024) -> EquivalenceVerdict:
    """Ask ``judge`` whether ``candidate`` equals ``reference``; never raises."""
    from physeval.probes.judge_reply import ask_json
    from physeval.probes.prompts import fill, load_prompt

    text = fill(prompt if prompt is not None else load_prompt("equivalence_judge"), reference=reference,
                candidate=candidate)
    reply = await ask_json(judge, [{"role": "user", "content": text}], SCHEMA, name="equivalence_verdict",
                           max_tokens=max_tokens)
    base: dict[str, Any] = {"judge": reply.judge, "method": reply.method, "structured": reply.structured,
                            "reply": reply.reply}
    if reply.outcome != "ok":
        return EquivalenceVerdict(None, reply.outcome, error=reply.error, **base)
    verdict = _as_bool(reply.data.get("equivalent"))
    if verdict is None:
        return EquivalenceVerdict(None, "invalid", error=f"unreadable 'equivalent': {reply.data.get('equivalent')!r}",
                                  **base)
    return EquivalenceVerdict(verdict, "ok", justification=str(reply.data.get("justification") or "")[:2000], **base)
