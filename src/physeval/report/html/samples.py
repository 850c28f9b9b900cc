"""The sample browser: every domain and outcome on its first page, filters, and pages for the rest.

Rows are ordered by taking one sample of each (domain, reason) stratum in turn (strata in the
order of their first sample, samples in key order), so the first page shows every domain and
every way a sample ended before any repeats; filters (reason, domain, variant) offer every
value of the embedded rows, and the pager walks the matching rows :data:`PAGE_SIZE` at a time.
Up to :data:`SAMPLE_ROWS` samples are embedded, long questions and responses shortened with a
note; the rest are one ``physeval export`` away.

Columns: problem, variant, sample, domain, reason, reference (the task's answer; for scenes the
verification checks passed), extracted (the graded answer; for scenes the stage reached), score
(EED for symbolic rows, the judge's ratio for scenes), why, and the folded question and response
(for scenes a strip of frames and each verification question with the judge's verdict).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from physeval.analysis.outcomes import sample_reason
from physeval.analysis.run import Run
from physeval.report.html.page import e

__all__ = ["PAGE_SIZE", "SAMPLE_ROWS", "sample_browser", "stratified"]

SAMPLE_ROWS = 1200
PAGE_SIZE = 25
_FRAME_STRIPS = 24  # scene samples whose frames are decoded for the browser
_FRAMES = 6
_QUESTION_CHARS = 1500
_RESPONSE_CHARS = 3000


def _domain(row: Any) -> str:
    meta = row.problem_meta or {}
    return str(meta.get("domain") or meta.get("tag") or "")


def stratified(rows: Sequence[Any]) -> list[Any]:
    """``rows`` reordered: one of each (domain, reason) stratum in turn, until none is left."""
    strata: dict[tuple[str, str], list[Any]] = {}
    for r in rows:
        strata.setdefault((_domain(r), sample_reason(r)), []).append(r)
    queues = list(strata.values())
    out: list[Any] = []
    depth = 0
    while len(out) < len(rows):
        out += [q[depth] for q in queues if depth < len(q)]
        depth += 1
    return out


def _references(run: Run) -> dict[tuple[str, str], str]:
    """(problem, variant) -> reference answer, from the task's problems when it still loads."""
    try:
        from physeval.store import RunStore
        from physeval.tasks.registry import get_task

        with RunStore(run.path) as store:
            meta = store.run_meta()
            options = dict(meta.task_options) if meta else dict(store.get_meta("task_options", {}) or {})
            data = (meta.invocation or {}).get("data") if meta else None
        if data and "data" not in options:
            options["data"] = data
        return {p.key: p.answer for p in get_task(run.task, **options).load()}
    except Exception:  # noqa: BLE001 - a report must not fail because the data moved; grades say what they can
        return {}


def _question(row: Any) -> str:
    for message in reversed(row.messages or []):
        if message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else str(content)
    return ""


def _shortened(text: str, limit: int) -> str:
    if len(text) <= limit:
        return e(text)
    return f"{e(text[:limit])}<span class='note'> … {len(text) - limit:,} more characters (physeval export)</span>"


def _frame_strip(grade: Mapping[str, Any]) -> str:
    path = (grade.get("render") or {}).get("video_path")
    if not path or not Path(path).is_file():
        return ""
    try:
        from physeval.scenes.frames import sample_frames

        frames = sample_frames(path, _FRAMES, max_side=160)
    except Exception:  # noqa: BLE001 - an undecodable video shows no strip
        return ""
    images = "".join(f"<img alt='frame at {f.time_s:.2f}s' title='t = {f.time_s:.2f} s' src='{f.data_url()}'>"
                     for f in frames)
    return f"<div class='frames'>{images}</div>" if images else ""


def _verdicts(grade: Mapping[str, Any]) -> str:
    judge = grade.get("judge") or {}
    per_question = judge.get("per_question") or {}
    if not judge.get("questions"):
        return ""
    items = []
    for q in judge["questions"]:
        verdict = per_question.get(str(q.get("key")))
        mark = ("<span class='verdict-yes'>yes</span>" if verdict else "<span class='verdict-no'>no</span>")
        items.append(f"<li>{mark} {e(q.get('question') or q.get('label'))}</li>")
    return f"<ol class='verdicts'>{''.join(items)}</ol>"


def _scene_cells(grade: Mapping[str, Any]) -> tuple[str, str, str]:
    """(reference, extracted, score) of a scene row: checks passed, stage reached, judge ratio."""
    judge = grade.get("judge") or {}
    questions = judge.get("questions") or []
    per_question = judge.get("per_question") or {}
    passed = sum(bool(per_question.get(str(q.get("key")))) for q in questions)
    reference = f"{passed} of {len(questions)} checks passed" if questions else "not judged"
    ratio = judge.get("ratio")
    return reference, f"stage: {grade.get('stage')}", f"{ratio:.2f}" if isinstance(ratio, (int, float)) else ""


def sample_browser(run: Run) -> str:
    """The browser: filters, pager, and the table of up to :data:`SAMPLE_ROWS` samples."""
    references = _references(run)
    rows = stratified(list(run.rows))[:SAMPLE_ROWS]
    strips = 0
    body = []
    for r in rows:
        grade = r.grade or {}
        reason = sample_reason(r)
        domain = _domain(r)
        scene = "stage" in grade
        if scene:
            reference, extracted, score = _scene_cells(grade)
        else:
            reference = references.get((r.problem_id, r.variant)) or ""
            if not reference and grade.get("reference_value") is not None:
                reference = f"{grade['reference_value']} {grade.get('unit_required') or ''}"
            extracted = str(grade.get("extracted") or "")
            eed = grade.get("eed_score")
            score = f"EED {eed:.1f}" if isinstance(eed, (int, float)) else ""
        strip = ""
        if scene and strips < _FRAME_STRIPS:
            strip = _frame_strip(grade)
            strips += bool(strip)
        why = grade.get("reason") or r.error_message or ""
        detail = (f"<details><summary>question, response{', frames and verdicts' if scene else ''}"
                  f"</summary><p><b>question</b></p><pre>{_shortened(_question(r), _QUESTION_CHARS)}</pre>"
                  f"<p><b>response</b> (finish: {e(r.finish_reason)})</p>"
                  f"<pre>{_shortened(r.completion or '', _RESPONSE_CHARS)}</pre>{strip}{_verdicts(grade)}</details>")
        body.append(f"<tr data-reason='{e(reason)}' data-domain='{e(domain)}' data-variant='{e(r.variant)}'>"
                    f"<td>{e(r.problem_id)}</td><td>{e(r.variant)}</td><td>{r.sample}</td><td>{e(domain)}</td>"
                    f"<td class='{'ok' if r.correct else 'bad'}'>{e(reason)}</td>"
                    f"<td><code>{e(reference)}</code></td><td><code>{e(extracted)}</code></td>"
                    f"<td class='num'>{e(score)}</td><td>{e(str(why)[:300])}{detail}</td></tr>")

    def select(name: str, values: Sequence[str]) -> str:
        options = "".join(f"<option value='{e(v)}'>{e(v)}</option>" for v in values)
        return f"<label>{name} <select name='{name}'><option value=''>all</option>{options}</select></label>"

    filters = (f"<div id='sample-filters' class='filters'>"
               f"{select('reason', sorted({sample_reason(r) for r in rows}))}"
               f"{select('domain', sorted({_domain(r) for r in rows} - {''}))}"
               f"{select('variant', sorted({r.variant for r in rows}, key=lambda v: (len(v), v)))}"
               f"<span><span id='shown-count'>{len(rows)}</span> matching of {len(rows)}</span></div>")
    pager = ("<div class='pager'><button type='button' id='page-prev'>previous</button>"
             "<span id='page-label'>page 1</span><button type='button' id='page-next'>next</button>"
             f"<span class='note'>{PAGE_SIZE} a page; the first pages hold every domain and every reason</span>"
             "</div>")
    head = ("<thead><tr><th>problem</th><th>variant</th><th>sample</th><th>domain</th><th>reason</th>"
            "<th>reference</th><th>extracted</th><th>score</th><th>why</th></tr></thead>")
    more = (f"<p class='note'>{len(rows)} of {len(run.rows)} samples embedded (every domain and reason "
            "first); all of them: <code>physeval export RUN_DIR</code></p>") if len(run.rows) > len(rows) else ""
    hidden = "".join(body[:PAGE_SIZE]) + "".join(b.replace("<tr ", "<tr hidden ", 1) for b in body[PAGE_SIZE:])
    return (f"{filters}{pager}{more}<div class='scroll' role='region' tabindex='0' aria-label='samples'>"
            f"<table id='samples-table' data-page-size='{PAGE_SIZE}'>{head}<tbody>{hidden}</tbody></table></div>")
