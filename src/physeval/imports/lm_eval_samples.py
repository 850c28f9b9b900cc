"""lm-evaluation-harness ``samples_<task>_<date>.jsonl`` files (``lm_eval --log_samples``).

One record per generation: the problem id and variant from the logged document (the ``id`` and
``variant`` physeval's export wrote, see :mod:`physeval.integrations.lm_eval_export`), the sample
index from the generation's position (lm-eval's ``repeats``), the response from ``resps`` (the raw
generations, before lm-eval's filters). The task and options come from the document, the model
name from the ``results_<date>.json`` beside the file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from physeval.errors import UserError
from physeval.imports.base import ForeignResponses, not_readable
from physeval.json_lines import NotText, read_json_lines

__all__ = ["read", "sniff"]


def sniff(path: Path, head: bytes) -> bool:
    """A JSONL whose first line opens an lm-eval sample (``doc_id`` first, then ``doc``)."""
    text = head.lstrip().decode("utf-8", errors="replace")
    return text.startswith('{"doc_id"') and '"doc"' in text


def _generations(value: Any) -> list[str | None]:
    """``resps`` is one list per request (one request per document for generate_until), each
    holding one generation per repeat."""
    flat: list[str | None] = []
    for item in value or []:
        for text in item if isinstance(item, list) else [item]:
            flat.append(text if isinstance(text, str) else None)
    return flat


def read(path: Path) -> ForeignResponses:
    """The file's generations as physeval records (see the module docstring)."""
    records: list[dict[str, Any]] = []
    task: str | None = None
    options: dict[str, Any] = {}
    bad: list[str] = []
    try:
        lines = read_json_lines(path)
    except NotText:
        raise not_readable(path, "not UTF-8 text") from None
    for line in lines:
        number, sample = line.number, line.value
        if line.error:
            bad.append(line.problem)
            continue
        doc = sample.get("doc") if isinstance(sample, dict) else None
        if not isinstance(doc, dict) or "id" not in doc:
            raise not_readable(path, f"line {number}: the lm-eval document has no physeval 'id' "
                                     "(export the task with `physeval export-lm-eval`)")
        task = task or doc.get("task")
        raw_options = doc.get("options") or {}
        options = options or (json.loads(raw_options) if isinstance(raw_options, str) else dict(raw_options))
        for index, text in enumerate(_generations(sample.get("resps"))):
            records.append({"id": str(doc["id"]), "variant": str(doc.get("variant", "0")), "sample": index,
                            "response": text, "export": text is None})
    if not records:
        raise UserError(f"{path}: the lm-eval samples file holds no generations" + (f" ({bad[0]})" if bad else ""))
    return ForeignResponses(format="lm-eval", records=records, task=task, task_options=options,
                            model=_model_name(path), errors=bad)


def _model_name(path: Path) -> str | None:
    """The model lm-eval named in the ``results_<date>.json`` written beside ``samples_<task>_<date>.jsonl``."""
    date = path.stem.rsplit("_", 1)[-1]
    results = path.parent / f"results_{date}.json"
    try:
        data = json.loads(results.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    name = data.get("model_name") if isinstance(data, dict) else None
    return str(name) if name else None
