"""The dataset card: counts, rejection reasons per stage, and SimuScene's Figure 5 panels as plots.

``card.md`` in the build directory says how many scenarios the build kept per domain, concept
and level, how many each stage let through and why it rejected the others (each kind with
examples), and shows three plots written to ``plots/``: the domain and concept distribution,
the scenario token lengths, and the number of questions per scenario. The card holds no time
stamps and the plots no software metadata, so the same build gives the same files.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from physeval.scene_builder.context import CHAIN, live_items
from physeval.scene_builder.filters import token_count
from physeval.scene_builder.store import BuildStore

__all__ = ["CARD_NAME", "PLOT_NAMES", "stage_funnel", "write_card"]

CARD_NAME = "card.md"
PLOT_NAMES = {"distribution": "domain_concepts.png", "tokens": "token_lengths.png",
              "questions": "questions_per_scenario.png"}
_REJECTING = ("basic", "compose", "filter", "plausibility", "questions", "review")
_HELPERS = {"review": ("revise", "regenerate")}  # replies made on behalf of a stage


def stage_funnel(store: BuildStore) -> list[dict[str, Any]]:
    """Per rejecting stage: records in, passed, rejections grouped by kind with (id, reason) examples, and
    the model replies it took (retries and revisions included).

    Only records that were live when the stage saw them are counted (a record the filters later
    let go in a grown build is not counted again downstream).
    """
    rows = []
    replies = store.call_counts()
    for stage in _REJECTING:
        if stage == "basic":
            seen = {i.key for i in store.items("basic")}
        elif stage == "compose":
            seen = {i.key for i in store.items("compose")}
        else:
            seen = {i.key for i in live_items(store, CHAIN[CHAIN.index(stage) - 1])}
        passed = store.items(stage, status="ok") if stage == "basic" else live_items(store, stage)
        rejected: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for item in store.items(stage, status="rejected"):
            if item.key in seen:
                rejected[item.kind or "rejected"].append((item.key, item.reason or ""))
        rows.append({"stage": stage, "in": len(seen), "passed": len({i.key for i in passed} & seen),
                     "rejected": dict(sorted(rejected.items())),
                     "replies": sum(replies.get(s, 0) for s in (stage, *_HELPERS.get(stage, ())))})
    return rows


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return lines


def _spread(values: list[int]) -> str:
    if not values:
        return "none"
    return f"min {min(values)}, median {statistics.median(values):g}, max {max(values)}"


def write_card(build_dir: str | Path, store: BuildStore, records: list[dict[str, Any]], *,
               human: dict[str, int], settings: dict[str, Any], models: dict[str, str],
               files: dict[str, Path], solved: bool) -> Path:
    """Write ``card.md`` and the plots; return the card's path."""
    build_dir = Path(build_dir)
    plots = _plots(build_dir / "plots", records)
    splits = Counter(_split(r, solved) for r in records)
    domains = Counter(r["domain"] for r in records)
    levels = Counter(r["level"] for r in records)
    concepts = Counter((r["domain"], r["concept"]) for r in records)
    per_level: dict[tuple[str, str], Counter[int]] = defaultdict(Counter)
    for r in records:
        per_level[(r["domain"], r["concept"])][r["level"]] += 1
    level_keys = sorted(set(levels) | set(settings.get("levels", [])))
    lines = ["# Dataset card: physeval scene build", ""]
    lines.append(f"Built with `physeval build scenes` (seed {settings.get('seed')}, taxonomy "
                 f"{Path(str(settings.get('taxonomy') or 'built-in')).name}). Models: "
                 + ", ".join(f"{role} `{name}`" for role, name in models.items()) + ".")
    lines.append("")
    split_text = ", ".join(f"{name} {splits[name]}" for name in ("test", "train", "sft", "rl") if name in splits)
    lines.append(f"**{len(records)} scenarios** ({split_text or 'none'}) in {len(domains)} domains and "
                 f"{len(concepts)} concepts. Human review: {human['accept']} accepted, {human['fix']} fixed, "
                 f"{human['drop']} dropped, {human['unreviewed']} not reviewed yet.")
    lines += ["", "## Scenarios per domain", ""]
    lines += _table(["domain", "scenarios", "concepts"],
                    [(d, n, len({c for dd, c in concepts if dd == d})) for d, n in sorted(domains.items())])
    lines += ["", "## Scenarios per level (number of added conditions)", ""]
    lines += _table(["level", "scenarios"], [(lv, levels[lv]) for lv in level_keys])
    lines += ["", "## Scenarios per concept", ""]
    lines += _table(["domain", "concept", "scenarios", *(f"L{lv}" for lv in level_keys)],
                    [(d, c, n, *(per_level[(d, c)][lv] for lv in level_keys))
                     for (d, c), n in sorted(concepts.items())])
    lines += ["", "## What each stage let through", ""]
    funnel = stage_funnel(store)
    lines += _table(["stage", "in", "passed", "rejected", "reasons", "model replies"],
                    [(f["stage"], f["in"], f["passed"], sum(len(v) for v in f["rejected"].values()),
                      ", ".join(f"{k} {len(v)}" for k, v in f["rejected"].items()) or "-", f["replies"])
                     for f in funnel])
    if human["drop"]:
        lines += ["", f"Human review dropped {human['drop']} more."]
    examples = [(f["stage"], kind, rid, reason) for f in funnel for kind, items in f["rejected"].items()
                for rid, reason in items[:5]]
    if examples:
        lines += ["", "### Rejection reasons (up to five examples of each kind)", ""]
        lines += [f"- {stage} / {kind}: `{rid}`: {_one_line(reason)}" for stage, kind, rid, reason in examples]
    if solved:
        verified = sum(1 for r in records if r.get("solution"))
        attempted = sum(1 for r in records if "solve" in r)
        lines += ["", "## Solve and verify", "",
                  (f"{attempted} train scenarios solved, rendered and judged; {verified} have a verified program "
                   f"(SFT split), {attempted - verified} do not (RL split). The test split was held out before.")]
    tokens = [token_count(r["scenario"]) for r in records]
    questions = [len(r["questions"]) for r in records]
    lines += ["", "## Properties (SimuScene Figure 5)", "",
              (f"Scenario length in tokens (words and punctuation): {_spread(tokens)}. "
               f"Questions per scenario: {_spread(questions)}."), "",
              f"![Domain and concept distribution](plots/{plots['distribution'].name})", "",
              f"![Scenario token lengths](plots/{plots['tokens'].name})", "",
              f"![Questions per scenario](plots/{plots['questions'].name})", "",
              "## Files", ""]
    lines += [f"- `{path.relative_to(build_dir)}`" for path in files.values()]
    lines += ["", ("Evaluate on the test split with `physeval run simuscene --data BUILD_DIR/dataset/test.jsonl "
                   "--model PROVIDER/NAME --judge PROVIDER/VLM`."), ""]
    card = build_dir / CARD_NAME
    card.write_text("\n".join(lines), encoding="utf-8")
    return card


def _split(record: dict[str, Any], solved: bool) -> str:
    from physeval.scene_builder.output import split_name

    return split_name(record, solved)


def _one_line(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def _plots(folder: Path, records: list[dict[str, Any]]) -> dict[str, Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    integer = MaxNLocator(integer=True)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {key: folder / name for key, name in PLOT_NAMES.items()}
    meta = {"Software": None}

    domains = Counter(r["domain"] for r in records)
    concepts = Counter((r["domain"], r["concept"]) for r in records)
    names = sorted(domains)
    colours = {d: plt.get_cmap("tab10")(i % 10) for i, d in enumerate(names)}
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, max(3.0, 0.28 * len(concepts) + 1.2)),
                                      gridspec_kw={"width_ratios": [1, 2]})
    left.bar(range(len(names)), [domains[d] for d in names], color=[colours[d] for d in names])
    left.set_xticks(range(len(names)), names, rotation=30, ha="right")
    left.set_ylabel("scenarios")
    left.yaxis.set_major_locator(integer)
    left.set_title("per domain")
    ordered = sorted(concepts, key=lambda dc: (names.index(dc[0]), dc[1]))
    right.barh(range(len(ordered)), [concepts[dc] for dc in ordered], color=[colours[d] for d, _ in ordered])
    right.set_yticks(range(len(ordered)), [c for _, c in ordered], fontsize=8)
    right.invert_yaxis()
    right.set_xlabel("scenarios")
    right.xaxis.set_major_locator(MaxNLocator(integer=True))
    right.set_title("per concept")
    fig.tight_layout()
    fig.savefig(paths["distribution"], dpi=100, metadata=meta)
    plt.close(fig)

    tokens = [token_count(r["scenario"]) for r in records]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist(tokens, bins=min(30, max(5, len(set(tokens)))), color="#4472c4")
    ax.set_xlabel("scenario length (tokens)")
    ax.set_ylabel("scenarios")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title("scenario token lengths")
    fig.tight_layout()
    fig.savefig(paths["tokens"], dpi=100, metadata=meta)
    plt.close(fig)

    counts = Counter(len(r["questions"]) for r in records)
    xs = list(range(4, 13))
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bar(xs, [counts[x] for x in xs], color="#ed7d31")
    ax.set_xticks(xs)
    ax.set_xlabel("verification questions")
    ax.set_ylabel("scenarios")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title("questions per scenario")
    fig.tight_layout()
    fig.savefig(paths["questions"], dpi=100, metadata=meta)
    plt.close(fig)
    return paths
