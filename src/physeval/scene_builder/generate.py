"""Stages 1 and 2: basic scenarios per concept, then scenarios composed with 0-3 conditions.

``basic``: one generator request per concept asks for ``per_concept`` basic dynamic scenarios
("a spinning disk on a frictionless table") and ``conditions`` that can be added to them
("considering air resistance"). ``compose``: for each basic scenario, a seeded draw picks a
level from ``levels`` and that many of the concept's conditions (the number of conditions *is*
the level), and the generator writes the full scenario text from the basic scenario and the
drawn conditions. The draw depends only on the build seed and the record id, so it is the
same however the build is split, interrupted or parallelised.
"""

from __future__ import annotations

import random
from typing import Any

from physeval.scene_builder.calls import derived_seed
from physeval.scene_builder.context import BuildContext, StageReport, run_items
from physeval.scene_builder.schemas import BasicReply, ComposeReply
from physeval.scene_builder.store import Item
from physeval.scene_builder.taxonomy import Concept

__all__ = ["basic_stage", "compose_stage", "draw_conditions", "record_id"]


def record_id(concept_slug: str, scenario: int, composition: int) -> str:
    """The id of a composed scenario: ``<concept slug>-<basic scenario, 2 digits>-<composition>``."""
    return f"{concept_slug}-{scenario + 1:02d}-{composition + 1}"


def draw_conditions(seed: int, rid: str, conditions: list[str], levels: tuple[int, ...]) -> list[str]:
    """The conditions drawn for record ``rid``: a level from ``levels``, then that many conditions
    without replacement (fewer when the concept has fewer), in the order drawn."""
    rng = random.Random(derived_seed(seed, "compose", rid))
    level = rng.choice(levels)
    return rng.sample(conditions, min(level, len(conditions)))


async def basic_stage(ctx: BuildContext) -> StageReport:
    """One request per concept for its basic scenarios and additional conditions."""
    opts = ctx.options

    async def work(key: str, concept: Concept) -> Item:
        prompt = ctx.caller.prompts.render(
            "basic", domain=concept.domain, concept=concept.name, n=opts.per_concept,
            n_conditions=opts.conditions_per_concept,
            description=f"About this concept: {concept.description}\n" if concept.description else "")
        asked = await ctx.caller.ask(ctx.role("generator"), BasicReply, stage="basic", key=key, prompt=prompt)
        data: dict[str, Any] = {"concept": concept.name, "domain": concept.domain, "slug": concept.slug}
        if asked.value is None:
            return Item("basic", key, "rejected", {**data, "reply": asked.reply}, "malformed_reply", asked.reason)
        data |= {"scenarios": asked.value.scenarios[:opts.per_concept],
                 "conditions": asked.value.conditions[:opts.conditions_per_concept]}
        return Item("basic", key, "ok", data)

    return await run_items(ctx, "basic", [(c.slug, c) for c in ctx.concepts], work)


async def compose_stage(ctx: BuildContext) -> StageReport:
    """Every basic scenario in the store x ``compositions``: draw its conditions, have the generator write it."""
    opts = ctx.options
    inputs: list[tuple[str, dict[str, Any]]] = []
    for item in ctx.store.items("basic", status="ok"):  # every concept built so far: a build can grow
        for i, basic in enumerate(item.data["scenarios"]):
            for j in range(opts.compositions):
                rid = record_id(item.key, i, j)
                conditions = draw_conditions(opts.seed, rid, item.data["conditions"], opts.levels)
                inputs.append((rid, {"id": rid, "domain": item.data["domain"], "concept": item.data["concept"],
                                     "basic": basic, "conditions": conditions, "level": len(conditions)}))

    async def work(key: str, record: dict[str, Any]) -> Item:
        conditions = record["conditions"]
        level = "none" if not conditions else f"{len(conditions)} condition{'s' if len(conditions) > 1 else ''}"
        prompt = ctx.caller.prompts.render(
            "compose", domain=record["domain"], concept=record["concept"], basic=record["basic"], level=level,
            conditions="\n".join(f"- {c}" for c in conditions) or "(none: the basic scenario as it is)")
        asked = await ctx.caller.ask(ctx.role("generator"), ComposeReply, stage="compose", key=key, prompt=prompt)
        if asked.value is None:
            return Item("compose", key, "rejected", {**record, "reply": asked.reply}, "malformed_reply", asked.reason)
        return Item("compose", key, "ok", {**record, "scenario": asked.value.scenario})

    return await run_items(ctx, "compose", inputs, work)
