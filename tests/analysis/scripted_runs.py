"""Real runs for the analysis and report tests: scripted models of known skill on the bank tasks.

Each model answers a (problem, sample) right when a hash of (model, problem, variant, sample)
falls below its skill, so every run is reproducible and the models differ by design: ``strong``
(skill 0.9) beats ``medium`` (0.6) beats ``weak`` (0.25). Wrong samples cycle through the ways
an answer fails (a wrong value, a missing answer, a cut-off reply, a wrong unit), so the
outcome breakdown has every reason to show. Scene models write a working program, a crashing
one, one that writes no video, or no code at all; the scripted judge says yes to every
question except question 2 of the first scene.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from physeval import RunConfig, evaluate
from physeval.problems import Problem
from physeval.tasks.registry import get_task
from physeval.testing import Reply, Request, ScriptedModel, ScriptedServer

SKILLS = {"strong": 0.9, "medium": 0.6, "weak": 0.25}
SAMPLES = 4


def unit(*parts: object) -> float:
    """A reproducible number in [0, 1) from ``parts``."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _problem_of(prompt: str, problems: list[Problem]) -> Problem | None:
    return next((p for p in problems if p.question in prompt), None)


class _Counter:
    """The k-th request for an item is its sample k (runs use one connection, samples in order)."""

    def __init__(self) -> None:
        self.seen: Counter[tuple[str, str]] = Counter()
        self.lock = threading.Lock()

    def next(self, problem: Problem) -> int:
        with self.lock:
            k = self.seen[problem.key]
            self.seen[problem.key] += 1
            return k


def numeric_script(model: str, problems: list[Problem]) -> Callable[[Request], Reply]:
    """Answers of a bank-numeric/bank-symbolic model with skill ``SKILLS[model]``."""
    counter = _Counter()

    def reply(request: Request) -> Reply:
        problem = _problem_of(request.prompt, problems)
        if problem is None:
            return Reply.text("OK")
        sample = counter.next(problem)
        u = unit(model, problem.id, problem.variant, sample)
        unit_latex = problem.meta.get("unit_latex", "")
        tail = f"\\,{unit_latex}" if unit_latex else ""
        filler = " ".join(["step"] * (20 + int(200 * unit("len", model, problem.id, sample))))
        if u < SKILLS[model]:
            return Reply.text(f"{filler} so \\boxed{{{problem.answer}{tail}}}.")
        failure = int(unit("how", model, problem.id, problem.variant, sample) * 4)
        if failure == 0:
            return Reply.text(f"{filler} step step step", finish_reason="length")
        if failure == 1:
            return Reply.text(f"{filler} I am not sure.")
        if failure == 2 and unit_latex:
            return Reply.text(f"{filler} \\boxed{{{problem.answer}\\,\\mathrm{{s}}}}")
        wrong = f"2 {problem.answer}" if not unit_latex else "1.00 \\times 10^{9}"
        return Reply.text(f"{filler} \\boxed{{{wrong}{tail}}}")
    return reply


PLAYABLE = '''```python
import sys, cv2, numpy as np
out = cv2.VideoWriter(sys.argv[1], cv2.VideoWriter_fourcc(*"mp4v"), 10, (160, 120))
for i in range(20):
    frame = np.full((120, 160, 3), 30, np.uint8)
    cv2.circle(frame, (10 + 7 * i, 60), 8, (80, 200, 255), -1)
    out.write(frame)
out.release()
```'''
CRASHING = "```python\nraise RuntimeError('no physics today')\n```"
NO_VIDEO = "```python\nprint('I computed it but drew nothing')\n```"


def scene_script(model: str, problems: list[Problem]) -> Callable[[Request], Reply]:
    """Scene programs: working ones with chance ``SKILLS[model]``, else one of three failures."""
    counter = _Counter()

    def reply(request: Request) -> Reply:
        problem = _problem_of(request.prompt, problems)
        if problem is None:
            return Reply.text("OK")
        sample = counter.next(problem)
        if unit("scene", model, problem.id, sample) < SKILLS[model]:
            return Reply.text("Here is the animation:\n" + PLAYABLE)
        failure = int(unit("how", model, problem.id, sample) * 3)
        return Reply.text([CRASHING, NO_VIDEO, "I would rather describe it in words."][failure])
    return reply


def judge_reply(first_question: str) -> Callable[[Request], Reply]:
    """Yes to every verification question, except question 2 of the scene whose text is given."""
    def reply(request: Request) -> Reply:
        content = request.body["messages"][-1]["content"]
        if isinstance(content, str):
            return Reply.text("OK")
        n = sum(1 for line in request.prompt.splitlines() if line[:1].isdigit())
        strict = first_question in request.prompt
        return Reply.text(json.dumps([{"index": i + 1, "analysis": "seen", "result": not (strict and i == 1)}
                                      for i in range(n)]))
    return reply


def make_run(root: Path, task_name: str, model: str, *, limit: int, samples: int = SAMPLES,
             judge_url: str | None = None, label: str | None = None, **options: object) -> Path:
    """One finished run of ``task_name`` by the scripted ``model`` (shown as ``label``, default
    ``model``) under ``root``; its directory."""
    if task_name == "bank-scene":
        options = {"judge": ["openai/vlm"], "judge_base_url": judge_url, "render_timeout": 60, "judge_frames": 4,
                   **options}
    task = get_task(task_name, **options)
    problems = task.load()
    script = (scene_script if task_name == "bank-scene" else numeric_script)(model, problems)
    run_dir = root / f"{task_name}-{options.get('variants', '')}-{model}"
    evaluate(task, ScriptedModel(script, name=f"{task_name}-{model}"), run_dir=run_dir,
             config=RunConfig(samples=samples, limit=limit, max_connections=1, use_cache=False),
             problems=problems, show_progress=False, model_label=label or model)
    return run_dir


def build_all(root: Path) -> dict[str, list[Path]]:
    """Three runs per task (strong, medium, weak): numeric static and dynamic, symbolic, scene."""
    runs: dict[str, list[Path]] = {}
    for model in SKILLS:
        runs.setdefault("numeric", []).append(make_run(root, "bank-numeric", model, limit=10, variants=1))
        runs.setdefault("dynamic", []).append(make_run(root, "bank-numeric", model, limit=10, variants=3))
        runs.setdefault("symbolic", []).append(make_run(root, "bank-symbolic", model, limit=10,
                                                        grading_processes=0))
    scene_problems = get_task("bank-scene").load()
    with ScriptedServer(judge_reply(scene_problems[0].question)) as judge:
        for model in SKILLS:
            runs.setdefault("scene", []).append(make_run(root, "bank-scene", model, limit=3, samples=2,
                                                         judge_url=judge.base_url))
    return runs
