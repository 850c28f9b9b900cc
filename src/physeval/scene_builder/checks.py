"""Stages 4, 5 and 6: plausibility, verification questions, and their review.

``plausibility``: a checker model decides whether each candidate is physically plausible and
renderable as a 2D animation; a rejection keeps the checker's reason. ``questions``: the
generator writes 4-12 yes/no questions, each of which a consistent animation must answer
"yes". ``review``: a reviewer model summarises the scenario's key entities and relations and
decides whether the set suffices to judge the full motion; an insufficient set goes back to
the generator with the reviewer's findings (``revise``), or, when the reviewer names nothing to
fix, is drawn afresh (``regenerate``, the questions prompt with a seed of its own), and is
reviewed again, at most ``max_revisions`` times; every round (questions, review, what was done)
is kept in the record, and a set still insufficient at the end rejects the scenario.
"""

from __future__ import annotations

from typing import Any

from physeval.scene_builder.context import BuildContext, StageReport, run_items
from physeval.scene_builder.schemas import PlausibilityReply, QuestionsReply, ReviewReply
from physeval.scene_builder.store import Item

__all__ = ["plausibility_stage", "questions_stage", "review_stage"]


def _numbered(questions: list[str]) -> str:
    return "\n".join(f"{i}. {q}" for i, q in enumerate(questions, 1))


async def plausibility_stage(ctx: BuildContext) -> StageReport:
    """The checker's verdict on every candidate that passed the filters."""
    async def work(key: str, record: dict[str, Any]) -> Item:
        prompt = ctx.caller.prompts.render("plausibility", domain=record["domain"], concept=record["concept"],
                                           scenario=record["scenario"])
        asked = await ctx.caller.ask(ctx.role("checker"), PlausibilityReply, stage="plausibility", key=key,
                                     prompt=prompt)
        if asked.value is None:
            return Item("plausibility", key, "rejected", {**record, "reply": asked.reply}, "malformed_reply",
                        asked.reason)
        verdict = asked.value.model_dump()
        data = {**record, "plausibility": verdict}
        if not verdict["plausible"]:
            return Item("plausibility", key, "rejected", data, "implausible", verdict["reason"] or "implausible")
        if not verdict["renderable"]:
            return Item("plausibility", key, "rejected", data, "not_renderable", verdict["reason"] or "not renderable")
        return Item("plausibility", key, "ok", data)

    inputs = [(i.key, i.data) for i in ctx.live_items("filter")]
    return await run_items(ctx, "plausibility", inputs, work)


async def questions_stage(ctx: BuildContext) -> StageReport:
    """4-12 verification questions per plausible scenario."""
    async def work(key: str, record: dict[str, Any]) -> Item:
        prompt = ctx.caller.prompts.render("questions", domain=record["domain"], concept=record["concept"],
                                           scenario=record["scenario"])
        asked = await ctx.caller.ask(ctx.role("generator"), QuestionsReply, stage="questions", key=key, prompt=prompt)
        if asked.value is None:
            return Item("questions", key, "rejected", {**record, "reply": asked.reply}, "malformed_reply",
                        asked.reason)
        return Item("questions", key, "ok", {**record, "questions": asked.value.questions})

    inputs = [(i.key, i.data) for i in ctx.live_items("plausibility")]
    return await run_items(ctx, "questions", inputs, work)


async def review_stage(ctx: BuildContext) -> StageReport:
    """Review each question set; revise insufficient ones within the budget, keeping every round."""
    budget = ctx.options.max_revisions

    async def work(key: str, record: dict[str, Any]) -> Item:
        questions: list[str] = record["questions"]
        rounds: list[dict[str, Any]] = []
        fields = {"domain": record["domain"], "concept": record["concept"], "scenario": record["scenario"]}
        for round_no in range(budget + 1):
            asked = await ctx.caller.ask(
                ctx.role("reviewer"), ReviewReply, stage="review", key=key, round=round_no,
                prompt=ctx.caller.prompts.render("review", questions=_numbered(questions), **fields))
            if asked.value is None:
                rounds.append({"round": round_no, "questions": questions, "review": None, "reply": asked.reply})
                return Item("review", key, "rejected", {**record, "rounds": rounds}, "malformed_reply", asked.reason)
            review = asked.value.model_dump()
            rounds.append({"round": round_no, "questions": questions, "review": review})
            if review["sufficient"]:
                data = {**record, "questions": questions, "summarize": review["summary"],
                        "entities": review["entities"], "relations": review["relations"], "rounds": rounds}
                return Item("review", key, "ok", data)
            if round_no == budget:
                break
            if review["missing"]:  # revise against the reviewer's findings
                action = "revise"
                missing = "\n".join(f"- {m}" for m in review["missing"])
                prompt = ctx.caller.prompts.render("revise", questions=_numbered(questions), missing=missing,
                                                   **fields)
            else:  # insufficient with nothing named to fix: draw a fresh set (its own seed)
                action = "regenerate"
                prompt = ctx.caller.prompts.render("questions", **fields)
            revised = await ctx.caller.ask(ctx.role("generator"), QuestionsReply, stage=action, key=key,
                                           round=round_no, prompt=prompt)
            rounds[-1]["action"] = action
            if revised.value is None:
                rounds.append({"round": round_no, "revision": None, "reply": revised.reply})
                return Item("review", key, "rejected", {**record, "rounds": rounds}, "malformed_reply",
                            f"{action}: {revised.reason}")
            questions = revised.value.questions
        last = rounds[-1]["review"] or {}
        reason = (f"question set still insufficient after {budget} revision{'s' if budget != 1 else ''}: "
                  + "; ".join(last.get("missing") or ["no details"]))
        return Item("review", key, "rejected", {**record, "rounds": rounds}, "insufficient_questions", reason)

    inputs = [(i.key, i.data) for i in ctx.live_items("questions")]
    return await run_items(ctx, "review", inputs, work)
