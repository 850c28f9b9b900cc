"""Inspect logs (``.eval`` and ``.json``), read with inspect's own log reader.

One record per sample and epoch: the problem id and variant from the sample metadata physeval's
inspect tasks write (``problem_id``, ``variant``), or from the sample id (``ID`` or ``ID#VARIANT``)
for another task's log; the sample index is the epoch minus one; the response is the completion,
``None`` when inspect recorded an error for the sample. Token usage is the sum over the sample's
models. The task and its options come from the log's ``physeval_task`` / ``physeval_options``.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from physeval.errors import UserError, missing_extra
from physeval.imports.base import ForeignResponses, not_readable

__all__ = ["read", "sniff"]


def sniff(path: Path, head: bytes) -> bool:
    """An ``.eval`` zip, or a JSON document that opens with inspect's log keys."""
    if head.startswith(b"PK") and path.suffix == ".eval":
        return zipfile.is_zipfile(path)
    text = head.lstrip()[:4096].decode("utf-8", errors="replace")
    return text.startswith("{") and '"eval"' in text and ('"version"' in text or '"status"' in text) \
        and path.suffix == ".json"


def _usage(sample: Any) -> dict[str, int]:
    total = {"prompt_tokens": 0, "completion_tokens": 0, "reasoning_tokens": 0}
    for usage in (getattr(sample, "model_usage", None) or {}).values():
        total["prompt_tokens"] += int(usage.input_tokens or 0)
        total["completion_tokens"] += int(usage.output_tokens or 0)
        total["reasoning_tokens"] += int(getattr(usage, "reasoning_tokens", None) or 0)
    return total if any(total.values()) else {}


def read(path: Path) -> ForeignResponses:
    """The log's samples as physeval records (see the module docstring)."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError as exc:
        raise missing_extra("reading inspect logs", "inspect", "inspect_ai") from exc
    try:
        log = read_eval_log(str(path))
    except Exception as exc:  # noqa: BLE001 - inspect's reader raises many kinds for a broken file
        raise not_readable(path, f"inspect could not read it: {type(exc).__name__}: {str(exc)[:200]}") from None
    if not log.samples:
        raise UserError(f"{path}: the inspect log holds no samples (status {log.status})")
    metadata = dict(log.eval.metadata or {})
    records, errors = [], []
    for sample in log.samples:
        meta = sample.metadata or {}
        sample_id = str(sample.id)
        pid, _, variant = sample_id.partition("#")
        pid = str(meta.get("problem_id", pid))
        variant = str(meta.get("variant", variant or "0"))
        response = sample.output.completion if sample.output is not None and sample.error is None else None
        if sample.error is not None:
            errors.append(f"{sample_id} epoch {sample.epoch}: {str(sample.error.message)[:200]}")
        records.append({"id": pid, "variant": variant, "sample": int(sample.epoch) - 1, "response": response,
                        "usage": _usage(sample), "export": response is None})
    options = metadata.get("physeval_options") or {}
    return ForeignResponses(format="inspect", records=records, task=metadata.get("physeval_task"),
                            task_options=json.loads(json.dumps(options)), model=log.eval.model, errors=errors)
