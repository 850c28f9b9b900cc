"""Harness overhead: physeval against inspect_ai and lm-eval on one instant server, side by side in one run.

Every harness runs bank-numeric (65 templates x ``variants``) as the command a user types, in its
own fresh process, against the same scripted OpenAI-compatible server on 127.0.0.1 (a separate
process, so its CPU is not counted; it answers instantly: the correct answer for two problems in
three by the prompt's CRC, for the rest a wrong one written the same way, its first digit changed: an
arithmetic slip, as a model makes one), at concurrency 16 with every cache off and
every sample stored:

* ``physeval``: ``physeval run bank-numeric -T variants=V --model openai/m --base-url URL --no-cache``;
* ``inspect`` (``--vs inspect``): ``inspect eval physeval/bank_numeric -T variants=V --model
  openai-api/scripted/m --max-connections 16`` (physeval's inspect integration: same prompts, same scorer);
* ``lm-eval`` (``--vs lm-eval``): the YAML ``physeval export-lm-eval`` writes, run with ``python -m
  lm_eval --model local-chat-completions --model_args ...,num_concurrent=16 --apply_chat_template``.

Per run it prints samples/s (wall), the harness's CPU time per sample (user + system of the
harness process and every child it reaped, from ``os.wait4``; the server excluded), start-up
(process start to the server's first request for a sample, wall), peak RSS and the accuracy the
harness reports, and the start-up's CPU (user + system of the harness process itself, read from
``/proc`` by the server at that first request: what a loaded machine does not inflate); the CPU
of an extra sample is the slope between the two sizes. Harnesses and sizes alternate (A B C A B C)
``--repeat`` times, medians shown; the load average is printed at start and end. The exit status
is 1 when a harness fails or the accuracies differ.

    python bench/harness_overhead.py --vs inspect --vs lm-eval [--sizes 260,2080] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

TASK = "bank-numeric"
TEMPLATES = 65
CONCURRENCY = 16

# ------------------------------------------------------------------------------ the server (a child process)


def _script(variants: int, log_path: Path) -> Any:
    from physeval.tasks.registry import get_task
    from physeval.testing import Reply, Request

    task = get_task(TASK, variants=variants)
    answers = {task.prompt(p)[-1]["content"]: p.answer for p in task.load()}
    state = {"first": None, "known": 0, "unknown": 0}

    def reply(request: Request) -> Reply:
        answer = answers.get(request.prompt)
        if answer is None:
            state["unknown"] += 1  # a preflight or a prompt this bench does not know
            return Reply.text("OK")
        if state["first"] is None:
            state["first"] = time.time()
            log_path.write_text(json.dumps({"first": state["first"], "cpu": _harness_cpu(log_path)}),
                                encoding="utf-8")
        state["known"] += 1
        right = zlib.crc32(request.prompt.encode()) % 3 != 0
        return Reply.text(f"The result follows. \\boxed{{{answer if right else _slip(answer)}}}")

    return reply, state


def _slip(answer: str) -> str:
    """``answer`` with its first non-zero digit changed (3.63 -> 4.63, 9.1 -> 1.1): wrong by over 1 %."""
    at = next(i for i, ch in enumerate(answer) if ch in "123456789")
    return f"{answer[:at]}{int(answer[at]) % 9 + 1}{answer[at + 1:]}"


def _harness_cpu(log_path: Path) -> float | None:
    """CPU seconds (user + system) the harness process has used so far, from ``/proc/PID/stat``; the
    bench writes the harness's pid beside the log before the harness can send anything."""
    try:
        pid = int((log_path.parent / "harness.pid").read_text())
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def serve(variants: int, log_path: str) -> int:
    """Serve until stdin closes; print the base URL, then the request counts and first-request time."""
    from physeval.testing import ScriptedServer

    reply, state = _script(variants, Path(log_path))
    with ScriptedServer(reply) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()
    print(json.dumps(state), flush=True)
    return 0


# ------------------------------------------------------------------------------ the harnesses


def _physeval(url: str, variants: int, work: Path) -> tuple[list[str], dict[str, str], Path]:
    out = work / "physeval-run"
    cmd = [_tool("physeval"), "run", TASK, "-T", f"variants={variants}", "--model", "openai/m", "--base-url", url,
           "--api-key", "x", "--no-cache", "--max-connections", str(CONCURRENCY), "--progress", "none",
           "--out", str(out)]
    return cmd, {}, out


def _inspect(url: str, variants: int, work: Path) -> tuple[list[str], dict[str, str], Path]:
    out = work / "inspect-logs"
    cmd = [_tool("inspect"), "eval", "physeval/bank_numeric", "-T", f"variants={variants}", "--model",
           "openai-api/scripted/m", "--max-connections", str(CONCURRENCY), "--log-dir", str(out),
           "--log-format", "json", "--display", "none"]  # inspect logs every sample by default
    return cmd, {"SCRIPTED_API_KEY": "x", "SCRIPTED_BASE_URL": url}, out


def _lm_eval(url: str, variants: int, work: Path) -> tuple[list[str], dict[str, str], Path]:
    tasks = work / f"lm-tasks-{variants}"
    if not tasks.is_dir():
        subprocess.run([_tool("physeval"), "export-lm-eval", TASK, "--out", str(tasks), "-T", f"variants={variants}"],
                       check=True, capture_output=True)
    out = work / "lm-eval-out"
    cmd = [sys.executable, "-m", "lm_eval", "--model", "local-chat-completions", "--model_args",
           f"model=m,base_url={url}/chat/completions,tokenizer_backend=None,num_concurrent={CONCURRENCY}",
           "--apply_chat_template", "--include_path", str(tasks), "--tasks", "physeval_bank_numeric",
           "--output_path", str(out), "--log_samples"]
    return cmd, {"HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", "OPENAI_API_KEY": "x"}, out


HARNESSES = {"physeval": _physeval, "inspect": _inspect, "lm-eval": _lm_eval}


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} is not installed next to {sys.executable}")
    return found


def _accuracy(harness: str, out: Path) -> float | None:
    if harness == "physeval":
        summary = json.loads((out / "summary.json").read_text())
        metrics = summary.get("metrics", {})
        entry = metrics.get("accuracy") if isinstance(metrics, dict) else None
        return float(entry["value"] if isinstance(entry, dict) else entry) if entry is not None else None
    if harness == "inspect":
        [log] = list(out.glob("*.json"))
        for score in json.loads(log.read_text())["results"]["scores"]:
            for name, metric in score["metrics"].items():
                if name.endswith("accuracy") and metric.get("value") is not None:
                    return float(metric["value"])
        return None
    [results] = list(out.rglob("results_*.json"))
    return float(json.loads(results.read_text())["results"]["physeval_bank_numeric"]["accuracy,none"])


def run_once(harness: str, variants: int, work: Path) -> dict[str, Any]:
    """One harness run on a fresh server: wall, CPU, start-up, peak RSS, accuracy."""
    first_log = work / "first.json"
    first_log.unlink(missing_ok=True)
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(variants), str(first_log)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None and server.stdin is not None
    url = server.stdout.readline().strip()
    for old in ("physeval-run", "inspect-logs", "lm-eval-out"):
        shutil.rmtree(work / old, ignore_errors=True)
    cmd, extra_env, out = HARNESSES[harness](url, variants, work)
    env = {**os.environ, **extra_env}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode as an installed package has it (written by the first run)
    pid_file = work / "harness.pid"
    pid_file.unlink(missing_ok=True)
    started = time.time()
    child = subprocess.Popen(cmd, env=env, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    pid_file.write_text(str(child.pid))  # read by the server at the first sample request (start-up CPU)
    assert child.stderr is not None
    stderr = child.stderr.read()
    _pid, status, usage = os.wait4(child.pid, 0)
    wall = time.time() - started
    server.stdin.close()
    counts = json.loads(server.stdout.read().strip().splitlines()[-1])
    server.wait()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{harness} failed:\n{stderr[-3000:]}")
    logged = json.loads(first_log.read_text()) if first_log.is_file() else {}
    first = logged.get("first")
    samples = TEMPLATES * variants
    if counts["known"] != samples:
        raise RuntimeError(f"{harness}: the server answered {counts['known']} sample requests, expected {samples}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "startup": (first - started) if first else None,
            "startup_cpu": logged.get("cpu"),
            "rss_mb": usage.ru_maxrss / 1024, "accuracy": _accuracy(harness, out), "samples": samples}


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vs", action="append", default=[], choices=("inspect", "lm-eval"))
    parser.add_argument("--sizes", default="260,2080", help="samples per run, multiples of 65 (default 260,2080)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--json", help="write every figure here")
    parser.add_argument("--serve", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        return serve(int(args.serve[0]), args.serve[1])
    sizes = [int(s) for s in args.sizes.split(",")]
    if any(s % TEMPLATES for s in sizes):
        raise SystemExit(f"--sizes must be multiples of {TEMPLATES}")
    harnesses = ["physeval", *args.vs]
    print(f"{TASK}, concurrency {CONCURRENCY}, caches off, instant scripted server (own process); "
          f"sizes {sizes}; load {_load()} at start")
    runs: dict[tuple[str, int], list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for harness in harnesses:  # an untimed first run: bytecode written, files in the page cache
            run_once(harness, 1, work)
        for _ in range(args.repeat):
            for size in sizes:
                for harness in harnesses:
                    runs.setdefault((harness, size), []).append(run_once(harness, size // TEMPLATES, work))
    print(f"load {_load()} at end\n")
    med = {key: {f: statistics.median(r[f] for r in rs if r[f] is not None) if any(r[f] is not None for r in rs)
                 else None for f in ("wall", "cpu", "startup", "startup_cpu", "rss_mb", "accuracy")}
           for key, rs in runs.items()}
    print(f"{'harness':<9} {'samples':>8} {'samples/s':>10} {'CPU ms/sample':>14} {'start-up s':>11} "
          f"{'start-up CPU s':>15} {'peak RSS MB':>12} {'accuracy':>9}")
    for (harness, size), m in med.items():
        startup = f"{m['startup']:.2f}" if m["startup"] is not None else "-"
        startup_cpu = f"{m['startup_cpu']:.2f}" if m["startup_cpu"] is not None else "-"
        print(f"{harness:<9} {size:>8} {size / m['wall']:>10,.0f} {1000 * m['cpu'] / size:>14.2f} {startup:>11} "
              f"{startup_cpu:>15} {m['rss_mb']:>12.0f} {m['accuracy']:>9.4f}")
    print()
    if len(sizes) > 1:
        for harness in harnesses:
            for small, big in zip(sizes, sizes[1:]):
                slope = (med[(harness, big)]["cpu"] - med[(harness, small)]["cpu"]) / (big - small)
                print(f"{harness}: CPU per extra sample {small} -> {big}: {1000 * slope:.2f} ms")
    accuracies = {size: {h: med[(h, size)]["accuracy"] for h in harnesses} for size in sizes}
    same = all(len({round(a, 12) for a in acc.values() if a is not None}) == 1 for acc in accuracies.values())
    print("accuracy agreement:", "identical" if same else f"DIFFERENT {accuracies}")
    if args.json:
        Path(args.json).write_text(json.dumps({f"{h}/{s}": r for (h, s), r in runs.items()}), encoding="utf-8")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
