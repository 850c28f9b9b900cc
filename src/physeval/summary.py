"""A run's result as a type: :class:`RunSummary`, the one writer and the one reader of ``summary.json``.

Why a type: ``summary.json`` is read by the terminal, the HTML report, the analyses, the loggers and
other people's scripts. As an untyped dict it was built in two places and its readers guessed its
keys (one number had two names). Here every field is declared once, with its meaning; the run's
last step (:func:`physeval.flow.summarise.summarise_run`) builds one from the run store,
:func:`write_summary` writes it, :func:`read_summary` reads it back (every layout physeval has
written), and :func:`summary_schema` is its JSON Schema (published as ``docs/summary.schema.json``).

The file mirrors the type field for field (JSON keys are the attribute names); a metric without a
value (NaN) is ``null``. ``version`` says which layout a file has: 1 (no ``version`` key: the
layout before this type existed, where ``counts.graded`` was also written ``counts.answered``, the
first errors sat under ``errors.first`` and ``provenance.sessions`` was a count) or
:data:`SUMMARY_VERSION`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NamedTuple

from physeval.json_schema import dataclass_schema
from physeval.metrics import Metric

__all__ = [
    "SUMMARY_NAME",
    "SUMMARY_VERSION",
    "Aborted",
    "Cost",
    "Counts",
    "MetricKey",
    "Provenance",
    "RunStatus",
    "RunSummary",
    "Session",
    "Tokens",
    "read_summary",
    "summary_schema",
    "write_summary",
]

SUMMARY_NAME = "summary.json"
SUMMARY_VERSION = 2
"""The layout :func:`write_summary` writes (1: files without a ``version`` key)."""

RunStatus = Literal["complete", "incomplete", "aborted"]

Breakdowns = Mapping[str, Mapping[str, Mapping[str, Metric]]]


@dataclass(frozen=True)
class Counts:
    """How many samples the run holds and how each ended; every metric's n is counted apart.

    Attributes:
        problems: Distinct problem ids with at least one stored sample.
        samples: Stored samples (graded + errors).
        planned_samples: What the run set out to grade (problems x variants x samples).
        graded: Samples answered and graded: the only ones metrics stand on.
        errors: Samples whose request, grader or judge failed: they measured nothing.
        missing: Planned samples without a stored row (not run yet).
        error_kinds: ``errors`` by kind (``server_error``, ``grader``, ``judge``...).
        outcomes: Stored samples by grade outcome (``correct``, ``wrong``, ``no_answer``...).
        reasons: Why each sample ended as it did (:mod:`physeval.analysis.outcomes`).
        budget: Samples whose EED tree was scored on a form simplified within the budget (by parts,
            or with hyperbolic functions held whole) because a count ran out.
    """

    problems: int = 0
    samples: int = 0
    planned_samples: int = 0
    graded: int = 0
    errors: int = 0
    missing: int = 0
    error_kinds: Mapping[str, int] = field(default_factory=dict)
    outcomes: Mapping[str, int] = field(default_factory=dict)
    reasons: Mapping[str, int] = field(default_factory=dict)
    budget: int = 0


@dataclass(frozen=True)
class Aborted:
    """Why a run stopped before its plan was done (preflight, fatal model error, circuit breaker)."""

    kind: str
    message: str
    hint: str = ""


@dataclass(frozen=True)
class Session:
    """One session of work on a run (a first run, each resume, a regrade leaves none).

    Attributes:
        started_at, ended_at: ISO 8601 UTC times (``None``: not recorded, in a version 1 file).
        wall_s: Its wall time in seconds.
        new_samples: Rows it wrote.
        errors: Of those, error rows.
        regraded: Rows it graded again from a stored completion.
        aborted: The abort's kind and message, when it aborted.
        interrupted: Whether it was interrupted (Ctrl-C, SIGTERM).
        ended: How it ended: ``finished``, ``interrupted``, ``aborted``, ``storage`` (a full or failing
            disk), ``crashed``, or ``killed`` (no end was recorded; ``ended_at`` is its last write);
            empty in files written before sessions said so.
    """

    started_at: str | None = None
    ended_at: str | None = None
    wall_s: float = 0.0
    new_samples: int = 0
    errors: int = 0
    regraded: int = 0
    aborted: str | None = None
    interrupted: bool = False
    ended: str = ""


@dataclass(frozen=True)
class Tokens:
    """Token totals over the stored samples' usage.

    ``reasoning_estimated`` is the reasoning the server did not count, estimated from the stored
    reasoning text of ``reasoning_estimated_samples`` samples
    (:func:`physeval.analysis.lengths.estimated_reasoning_tokens`); ``None`` in a summary written
    before physeval recorded it.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    reasoning_estimated: int | None = None
    reasoning_estimated_samples: int = 0


@dataclass(frozen=True)
class Provenance:
    """Where the numbers came from: versions, data and config hashes, sessions, tokens.

    Attributes:
        physeval, python, platform, libraries: The software that made the summary.
        data_sha256: SHA-256 of each data file the task read.
        config_sha256: SHA-256 of the resolved task, model and config.
        started_at, ended_at: The first session's start and the last one's end.
        wall_s: Wall time summed over the sessions.
        sessions: Every session, in order.
        tokens: Token totals.
        settings_history: Settings changes accepted with ``--force`` on resume.
        regrades: Each ``physeval regrade`` of the run.
        task: What the task adds (scenes: ``sandbox``, the render interpreter and its lock file);
            written beside the other keys (``provenance.sandbox``).
    """

    physeval: str = ""
    python: str = ""
    platform: str = ""
    libraries: Mapping[str, str] = field(default_factory=dict)
    data_sha256: Mapping[str, str] = field(default_factory=dict)
    config_sha256: str = ""
    started_at: str | None = None
    ended_at: str | None = None
    wall_s: float = 0.0
    sessions: tuple[Session, ...] = ()
    tokens: Tokens = field(default_factory=Tokens)
    settings_history: tuple[Mapping[str, Any], ...] = ()
    regrades: tuple[Mapping[str, Any], ...] = ()
    task: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Cost:
    """The run's cost from ``--price-in`` / ``--price-out`` (dollars per million tokens)."""

    price_in: float
    price_out: float
    total_usd: float


class MetricKey(NamedTuple):
    """Where a metric sits in a summary: its name, and for grouped metrics the group."""

    name: str
    key: str | None = None
    value: str | None = None

    @property
    def label(self) -> str:
        """For display only: ``accuracy`` or ``accuracy (language = zh)``."""
        return self.name if self.key is None else f"{self.name} ({self.key} = {self.value})"


@dataclass(frozen=True)
class RunSummary:
    """A run's result: what ran, how many samples ended how, every metric with its n, why not whole.

    Attributes:
        task: The task's registered name.
        model: The model as the run names it.
        config: The run settings, with the task's own under ``task``.
        counts: The sample counts (:class:`Counts`).
        metrics: The ungrouped metrics by name (value, 95 % interval, n problems, n samples).
        breakdowns: The grouped ones: ``breakdowns[KEY][VALUE][NAME]`` (``["language"]["zh"]["accuracy"]``).
        notes: What was omitted or left out of a metric, and why.
        status: ``complete`` (every planned sample graded), ``incomplete`` (errors or missing
            samples) or ``aborted``.
        first_errors: The first few distinct error messages.
        aborted: Why the run stopped early, when it did.
        provenance: Where the numbers came from.
        cost: The cost, when prices were given.
        version: The layout (:data:`SUMMARY_VERSION`).
    """

    task: str
    model: str
    config: Mapping[str, Any] = field(default_factory=dict)
    counts: Counts = field(default_factory=Counts)
    metrics: Mapping[str, Metric] = field(default_factory=dict)
    breakdowns: Breakdowns = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    status: RunStatus = "complete"
    first_errors: tuple[str, ...] = ()
    aborted: Aborted | None = None
    provenance: Provenance = field(default_factory=Provenance)
    cost: Cost | None = None
    version: int = SUMMARY_VERSION

    @property
    def complete(self) -> bool:
        """Whether every planned sample was graded (``status`` is ``complete``; exit status 0).
        Written to the file too, as ``complete``."""
        return self.status == "complete"

    def entries(self, *, breakdowns: bool = True) -> Iterator[tuple[MetricKey, Metric]]:
        """Every metric with its structured key: the ungrouped ones first, then each breakdown key,
        value and metric in the summary's order."""
        for name, metric in self.metrics.items():
            yield MetricKey(name), metric
        if breakdowns:
            for key, groups in self.breakdowns.items():
                for value, metrics in groups.items():
                    for name, metric in metrics.items():
                        yield MetricKey(name, key, value), metric

    def metric(self, key: MetricKey | str) -> Metric | None:
        """The metric at ``key`` (a name for an ungrouped one), ``None`` when the run lacks it."""
        key = MetricKey(key) if isinstance(key, str) else key
        if key.key is None:
            return self.metrics.get(key.name)
        return ((self.breakdowns.get(key.key) or {}).get(key.value or "") or {}).get(key.name)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document :func:`write_summary` writes (NaN left as NaN; the writer makes it null)."""
        provenance = _plain(self.provenance)
        provenance.update(provenance.pop("task"))  # the task's entries sit beside the others
        out: dict[str, Any] = {
            "version": self.version,
            "task": self.task,
            "model": self.model,
            "config": _plain(self.config),
            "counts": _plain(self.counts),
            "metrics": {name: m.to_dict() for name, m in self.metrics.items()},
            "breakdowns": {key: {value: {name: m.to_dict() for name, m in metrics.items()}
                                 for value, metrics in groups.items()}
                           for key, groups in self.breakdowns.items()},
            "notes": list(self.notes),
            "status": self.status,
            "complete": self.complete,
            "first_errors": list(self.first_errors),
            "aborted": _plain(self.aborted),
            "provenance": provenance,
            "cost": _plain(self.cost),
        }
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunSummary:
        """Read a ``summary.json`` document of any layout physeval wrote (see the module doc)."""
        counts = dict(data.get("counts") or {})
        if "graded" not in counts and "answered" in counts:  # version 1 wrote both names
            counts["graded"] = counts["answered"]
        errors: Mapping[str, Any] = data["errors"] if isinstance(data.get("errors"), Mapping) else {}
        status: RunStatus = data.get("status") or ("complete" if data.get("complete", True) else "incomplete")
        aborted = data.get("aborted")
        cost = data.get("cost")
        return cls(
            task=str(data.get("task", "")),
            model=str(data.get("model", "")),
            config=dict(data.get("config") or {}),
            counts=_known(Counts, counts),
            metrics={name: _metric(m) for name, m in (data.get("metrics") or {}).items()},
            breakdowns={key: {str(value): {name: _metric(m) for name, m in metrics.items()}
                              for value, metrics in groups.items()}
                        for key, groups in (data.get("breakdowns") or {}).items()},
            notes=tuple(data.get("notes") or ()),
            status=status,
            first_errors=tuple(data.get("first_errors") or errors.get("first") or ()),
            aborted=_known(Aborted, aborted) if isinstance(aborted, Mapping) else None,
            provenance=_provenance(data.get("provenance") or {}),
            cost=_known(Cost, cost) if isinstance(cost, Mapping) else None,
            version=int(data.get("version", 1)),
        )


def _plain(value: Any) -> Any:
    """A dataclass, mapping or tuple as JSON-ready dicts and lists."""
    if hasattr(value, "__dataclass_fields__"):
        return {name: _plain(getattr(value, name)) for name in value.__dataclass_fields__}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _known(cls: Any, data: Mapping[str, Any]) -> Any:
    """``cls`` from the keys of ``data`` it declares (others are ignored: a newer writer's)."""
    return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


def _number(value: Any) -> float:
    return math.nan if value is None else float(value)


def _metric(data: Mapping[str, Any]) -> Metric:
    return Metric(_number(data.get("value")), _number(data.get("ci_low")), _number(data.get("ci_high")),
                  int(data.get("n") or 0), int(data.get("n_samples") or 0))


def _provenance(data: Mapping[str, Any]) -> Provenance:
    known = set(Provenance.__dataclass_fields__) - {"task"}
    sessions = data.get("sessions")
    if isinstance(sessions, int):  # version 1: a count of sessions, their details not kept
        listed: tuple[Session, ...] = tuple(Session() for _ in range(sessions))
    else:
        listed = tuple(_known(Session, s) for s in sessions or ())
    values = {k: v for k, v in data.items() if k in known}
    values.update(sessions=listed, tokens=_known(Tokens, data.get("tokens") or {}),
                  settings_history=tuple(data.get("settings_history") or ()),
                  regrades=tuple(data.get("regrades") or ()),
                  task={k: v for k, v in data.items() if k not in known})
    return Provenance(**values)


def write_summary(run_dir: str | Path, summary: RunSummary) -> Path:
    """Write ``summary.json`` atomically (temp file, then rename); NaN and infinities become null."""
    path = Path(run_dir) / SUMMARY_NAME
    tmp = path.with_suffix(".json.tmp")
    text = json.dumps(_finite(summary.to_dict()), indent=2, ensure_ascii=False, allow_nan=False)
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path


def _finite(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def read_summary(run_dir: str | Path) -> RunSummary:
    """The :class:`RunSummary` in a run directory's ``summary.json`` (any layout physeval wrote)."""
    path = Path(run_dir) / SUMMARY_NAME
    if not path.is_file():
        raise FileNotFoundError(f"no {SUMMARY_NAME} in {run_dir}: is it a physeval run directory?")
    return RunSummary.from_dict(json.loads(path.read_text(encoding="utf-8")))


def summary_schema() -> dict[str, Any]:
    """The JSON Schema of the ``summary.json`` that :func:`write_summary` writes."""
    schema = dataclass_schema(RunSummary, title="physeval summary.json",
                              description=f"A physeval run's result, layout version {SUMMARY_VERSION}.")
    schema["properties"]["version"] = {"const": SUMMARY_VERSION}
    schema["properties"]["complete"] = {"type": "boolean", "description": "whether status is complete"}
    schema["required"] = sorted({*schema["required"], "version", "complete", "status", "first_errors"})
    provenance = schema["$defs"]["Provenance"]
    del provenance["properties"]["task"]  # the task's entries are written beside the others
    provenance["required"].remove("task")
    provenance["additionalProperties"] = True
    tokens = schema["$defs"]["Tokens"]  # added within layout 2: a summary written before has neither
    tokens["required"] = [name for name in tokens["required"] if not name.startswith("reasoning_estimated")]
    return schema
