"""The batched rewards in the exact shapes TRL, verl and OpenRLHF call them.

None of these trainers is a dependency (each pulls in torch and CUDA wheels); the adapters
follow the call conventions in the trainers' own source:

* **TRL** ``GRPOTrainer(reward_funcs=[...])`` calls ``reward_func(prompts=..., completions=...,
  completion_ids=..., trainer_state=..., **columns)`` with every dataset column except the
  prompt as a keyword list, and accepts ``None`` for a row the function does not apply to.
  Completions are strings, or lists of chat messages for conversational datasets. TRL runs
  ``async def`` reward functions on its own event loop (``asynchronous=True`` here)::

      trainer = GRPOTrainer(..., reward_funcs=[trl_reward("numeric", reference_column="answer")])

* **verl** ``custom_reward_function.path=<file> name=compute_score`` (naive reward manager):
  ``compute_score(data_source=, solution_str=, ground_truth=, extra_info=, **reward_kwargs)``
  returning a float or a dict with ``score`` (every other key is logged, and ``pred`` feeds
  maj@N). With ``reward_manager=batch`` and ``name=compute_score_batch``:
  ``compute_score_batch(data_sources=, solution_strs=, ground_truths=, extra_infos=, **kwargs)``
  returning one dict per item. Data sources physeval does not know go to verl's own
  ``default_compute_score`` when verl is installed.

* **OpenRLHF** ``--remote_rm_url reward_func.py`` (a file defining ``reward_func = openrlhf_reward_func(...)``):
  ``reward_func(queries, prompts, labels)`` where each query is the prompt followed by the
  response; returns ``{"rewards", "scores", "extra_logs"}`` (torch tensors when torch is there).

The numeric reward reads the required unit from the question; without a question column the
prompt is the question (``30000 m/s`` against ``30`` for a prompt asking for km/s is right).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from physeval.rewards.batch import (
    NumericRewardOptions,
    SymbolicRewardOptions,
    Track,
    ascore_batch,
    score_batch,
)
from physeval.rewards.executors import LocalExecutor
from physeval.rewards.result import RewardResult
from physeval.rewards.scene import SceneRewardOptions

__all__ = [
    "completion_text",
    "compute_score",
    "compute_score_batch",
    "openrlhf_reward_func",
    "prompt_text",
    "route_data_source",
    "trl_reward",
    "verl_result",
]

Kind = Literal["numeric", "symbolic", "scene"]


def completion_text(completion: Any) -> str:
    """The text of a completion: a string, or the last message's content of a chat list."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        return _content(completion.get("content"))
    if isinstance(completion, Sequence) and completion:
        last = completion[-1]
        if isinstance(last, Mapping):
            return _content(last.get("content"))
    return "" if completion is None else str(completion)


_SPECIAL_TOKENS = re.compile(r"<\|[^|<>]{0,40}\|>|</?s>|\[/?INST\]|<(?:start|end)_of_turn>")
_TRAILING_ROLE = re.compile(r"(?:\s*\b(?:assistant|model|Assistant:|ASSISTANT:|### Response:)\s*)+\Z")


def prompt_text(prompt: Any) -> str:
    """The question inside a prompt: a chat-templated string without its special tokens and the
    trailing assistant header (the question's closing instruction must end the text), or every user
    message's text of a chat list."""
    if isinstance(prompt, str):
        text = _SPECIAL_TOKENS.sub("\n", prompt)
        return _TRAILING_ROLE.sub("", text.rstrip()).rstrip()
    if isinstance(prompt, Sequence):
        users = [_content(m.get("content")) for m in prompt if isinstance(m, Mapping) and m.get("role") == "user"]
        return "\n".join(users)
    return "" if prompt is None else str(prompt)


def _content(content: Any) -> str:
    if isinstance(content, list):  # content parts
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return "" if content is None else str(content)


def _options(kind: Kind, rel_tol: float, format_weight: float, partial_credit: bool,
             scene_options: SceneRewardOptions | None) -> Any:
    if kind == "numeric":
        return NumericRewardOptions(rel_tol=rel_tol, format_weight=format_weight)
    if kind == "symbolic":
        return SymbolicRewardOptions(partial_credit=partial_credit)
    return scene_options or SceneRewardOptions()


def trl_reward(
    kind: Kind = "numeric",
    *,
    reference_column: str | None = None,
    question_column: str = "question",
    unit_column: str = "unit",
    partial_credit: bool = False,
    rel_tol: float = 0.01,
    format_weight: float = 0.0,
    scene_options: SceneRewardOptions | None = None,
    judges: Sequence[Any] | None = None,
    asynchronous: bool = False,
    on_results: Callable[[list[RewardResult]], None] | None = None,
) -> Callable[..., Any]:
    """A TRL ``GRPOTrainer`` reward function (see the module docstring).

    ``reference_column`` holds the answers (default ``answer``) or, for ``scene``, the scene ids
    (default ``scene``). ``question_column`` gives the numeric reward its required unit; when the
    dataset has none, the prompt is read instead; ``unit_column``, when the dataset has it, gives each
    row's required unit explicitly (a blank cell: the question's). Rows whose reference is ``None`` or blank get
    ``None``. ``asynchronous=True`` returns an ``async def`` (TRL awaits it on its reward loop).
    ``on_results`` receives every batch's :class:`RewardResult` s (the explanations, for logging).
    A missing reference column raises ``KeyError`` naming the columns there are.
    """
    if kind not in ("numeric", "symbolic", "scene"):
        raise ValueError(f"kind must be 'numeric', 'symbolic' or 'scene', not {kind!r}")
    column = reference_column or ("scene" if kind == "scene" else "answer")
    options = _options(kind, rel_tol, format_weight, partial_credit, scene_options)
    holder: dict[str, LocalExecutor] = {}
    lock = threading.Lock()

    def executor() -> LocalExecutor:
        with lock:  # one executor per reward function, kept warm across steps
            if "x" not in holder:
                holder["x"] = LocalExecutor()
            return holder["x"]

    def arguments(prompts: Sequence[Any], completions: Sequence[Any], columns: Mapping[str, Any]) -> dict[str, Any]:
        references = columns.get(column)
        if references is None:
            names = sorted(k for k in columns if k not in ("completion_ids", "trainer_state"))
            raise KeyError(f"the dataset has no column {column!r} (columns: {names})")
        texts = [completion_text(c) for c in completions]
        questions = columns.get(question_column)
        if questions is None:
            questions = [prompt_text(p) for p in (prompts or [""] * len(texts))]
        kwargs: dict[str, Any] = {"options": options, "executor": executor(), "judges": judges}
        if kind == "scene":
            kwargs["scenes"] = list(references)
            return {"track": kind, "completions": texts, "references": None, **kwargs}
        units = columns.get(unit_column)
        return {"track": kind, "completions": texts, "references": list(references),
                "questions": [str(q or "") for q in questions],
                "units": list(units) if units is not None else None, **kwargs}

    def finish(results: list[RewardResult]) -> list[float | None]:
        if on_results is not None:
            on_results(results)
        return [r.reward for r in results]

    if asynchronous:
        async def areward(prompts: Sequence[Any] = (), completions: Sequence[Any] = (),
                          **columns: Any) -> list[float | None]:
            args = arguments(prompts, completions, columns)
            return finish(await ascore_batch(args.pop("track"), args.pop("completions"), args.pop("references"),
                                             **args))

        areward.__name__ = f"physeval_{kind}_reward"
        return areward

    def reward(prompts: Sequence[Any] = (), completions: Sequence[Any] = (), **columns: Any) -> list[float | None]:
        args = arguments(prompts, completions, columns)
        return finish(score_batch(args.pop("track"), args.pop("completions"), args.pop("references"), **args))

    reward.__name__ = f"physeval_{kind}_reward"
    return reward


# ----------------------------------------------------------------------------------- verl

_SYMBOLIC_SOURCES = ("phybench", "symbolic")
_NUMERIC_SOURCES = ("abench", "numeric", "physeval")
_SCENE_SOURCES = ("simuscene", "scene")


def route_data_source(data_source: str | None) -> Track | None:
    """Which physeval track scores ``data_source`` (``None``: not physeval's; verl's default scorer).

    Names containing ``phybench``/``symbolic`` -> symbolic; ``simuscene``/``scene`` -> scene;
    ``abench``/``numeric``/``physeval`` -> numeric.
    """
    source = (data_source or "").lower()
    if any(s in source for s in _SYMBOLIC_SOURCES):
        return "symbolic"
    if any(s in source for s in _SCENE_SOURCES):
        return "scene"
    if any(s in source for s in _NUMERIC_SOURCES):
        return "numeric"
    return None


def _verl_default() -> Callable[..., Any] | None:
    try:
        from verl.utils.reward_score import default_compute_score
    except ImportError:
        return None
    return default_compute_score


def verl_result(result: RewardResult) -> dict[str, Any]:
    """One item as verl takes it: ``{"score", "acc", "pred", "outcome", "scored"}``."""
    # verl collects every key of every item into lists, so every item carries the same keys. verl writes
    # "score" into its reward tensor, which holds numbers only: an item that was not measured (timeout,
    # grader error, dead judge, sandbox fault) is 0 there, with "scored": False and its outcome beside it
    # (verl logs every other key in reward_extra_info), so a trainer can mask it
    return {"score": float(result.reward or 0.0), "acc": bool(result.correct), "pred": result.pred,
            "outcome": result.outcome, "scored": result.reward is not None}


def _from_default(value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping):
        score = float(value.get("score", 0.0) or 0.0)
        return {"score": score, "acc": bool(value.get("acc", score > 0)), "pred": str(value.get("pred", "") or ""),
                "outcome": "verl_default", "scored": True}
    score = float(value or 0.0)
    return {"score": score, "acc": score > 0, "pred": "", "outcome": "verl_default", "scored": True}


def _verl_options(track: Track, extra: Mapping[str, Any], kwargs: Mapping[str, Any]) -> Any:
    merged = {**kwargs, **{k: v for k, v in extra.items() if k in ("partial_credit", "rel_tol", "format_weight")}}
    if track == "numeric":
        return NumericRewardOptions(rel_tol=float(merged.get("rel_tol", 0.01)),
                                    format_weight=float(merged.get("format_weight", 0.0)))
    if track == "symbolic":
        return SymbolicRewardOptions(partial_credit=bool(merged.get("partial_credit", False)))
    judges = merged.get("judges") or ()
    return SceneRewardOptions(judges=tuple([judges] if isinstance(judges, str) else judges),
                              judge_base_url=merged.get("judge_base_url"),
                              mode=merged.get("judge_mode", "frames"), aggregation=merged.get("aggregation", "binary"))


def compute_score_batch(data_sources: Sequence[str], solution_strs: Sequence[str], ground_truths: Sequence[Any],
                        extra_infos: Sequence[Mapping[str, Any] | None] | None = None,
                        **kwargs: Any) -> list[dict[str, Any]]:
    """Verl's batch reward manager signature: one ``{"score", "acc", "pred", "outcome", "scored"}`` per item
    (``scored`` False: not measured, ``score`` 0 only because verl's reward tensor needs a number).

    Items are grouped by track and each group is scored as one batch (the shared grading pool);
    ``extra_info["question"]`` gives the numeric reward its unit (``extra_info["unit"]``, when given,
    wins), ``extra_info["partial_credit"]``
    the symbolic one its EED credit; scene items take ``ground_truth`` as the scene (bank id) and
    ``judges``/``judge_base_url``/``judge_mode``/``aggregation`` from the reward kwargs. Unknown
    data sources go to verl's ``default_compute_score`` (with ``kwargs``) when verl is installed,
    else to the numeric reward.
    """
    n = len(solution_strs)
    extras = [dict(e or {}) for e in (extra_infos if extra_infos is not None else [None] * n)]
    out: list[dict[str, Any] | None] = [None] * n
    groups: dict[tuple[Track, Any], list[int]] = {}
    default = _verl_default()
    for i, source in enumerate(data_sources):
        track = route_data_source(source)
        if track is None and default is not None:
            out[i] = _from_default(default(source, solution_strs[i], ground_truths[i], extras[i], **kwargs))
            continue
        track = track or "numeric"
        groups.setdefault((track, _verl_options(track, extras[i], kwargs)), []).append(i)
    for (track, options), indices in groups.items():
        results = score_batch(track, [str(solution_strs[i] or "") for i in indices],
                              [ground_truths[i] for i in indices],
                              questions=[str(extras[i].get("question", "") or "") for i in indices],
                              units=[extras[i].get("unit") for i in indices] if track == "numeric" else None,
                              options=options)
        for i, result in zip(indices, results):
            out[i] = verl_result(result)
    return [item if item is not None else _from_default(0.0) for item in out]


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Mapping[str, Any] | None = None,
                  **kwargs: Any) -> dict[str, Any]:
    """Verl's custom reward signature (naive reward manager); ``{"score", "acc", "pred", "outcome", "scored"}``.

    Routing and options as :func:`compute_score_batch`; extra keyword arguments (verl's
    ``reward_kwargs``, ``sandbox_fusion_url``...) are accepted and passed on to verl's default scorer.
    """
    return compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info], **kwargs)[0]


# ----------------------------------------------------------------------------------- OpenRLHF


def _response_of(query: str, prompt: str) -> str:
    return query[len(prompt):] if prompt and query.startswith(prompt) else query


def _tensor(values: list[float]) -> Any:
    try:
        import torch
    except ImportError:
        return values
    return torch.tensor(values, dtype=torch.float32)


def openrlhf_result(results: Sequence[RewardResult]) -> dict[str, Any]:
    """``{"rewards", "scores", "extra_logs"}`` as lists (the JSON the remote protocol returns). OpenRLHF's
    rewards are a tensor of numbers: an item that was not measured is 0 there and 0 in ``extra_logs["scored"]``."""
    rewards = [float(r.reward or 0.0) for r in results]
    return {"rewards": rewards, "scores": [min(1.0, max(0.0, x)) for x in rewards],
            "extra_logs": {"correct": [1.0 if r.correct else 0.0 for r in results],
                           "scored": [0.0 if r.reward is None else 1.0 for r in results]}}


def openrlhf_reward_func(kind: Kind = "numeric", *, partial_credit: bool = False, rel_tol: float = 0.01,
                         format_weight: float = 0.0, scene_options: SceneRewardOptions | None = None,
                         judges: Sequence[Any] | None = None) -> Callable[..., dict[str, Any]]:
    """OpenRLHF's custom ``reward_func(queries, prompts, labels)`` (see the module docstring).

    ``labels`` are the references (``--label_key``), scene ids for ``scene``; the prompt is the
    numeric question. A label of ``None`` earns 0 and ``scored`` 0 in the extra logs.
    """
    options = _options(kind, rel_tol, format_weight, partial_credit, scene_options)

    def reward_func(queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any],
                    **_kwargs: Any) -> dict[str, Any]:
        responses = [_response_of(str(q), str(p or "")) for q, p in zip(queries, prompts)]
        if kind == "scene":
            results = score_batch("scene", responses, None, scenes=list(labels), options=options, judges=judges)
        else:
            results = score_batch(kind, responses, list(labels), questions=[prompt_text(str(p or "")) for p in prompts],
                                  options=options)
        logs = openrlhf_result(results)
        return {"rewards": _tensor(logs["rewards"]), "scores": _tensor(logs["scores"]),
                "extra_logs": {k: _tensor(v) for k, v in logs["extra_logs"].items()}}

    return reward_func
