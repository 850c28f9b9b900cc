"""Rewards at trainer speed: scene rollouts, graded rollouts and the reward service, with the paper's anchor.

Prints:
  1. scene: a batch of scene rollouts (bank scenes; real programs: good, broken, slow) rewarded
     with a scripted judge answering after 2 s: wall time and rollouts/s with 1, 2 and all render
     workers, through Ray on a local two-node cluster (`ray start` head + node on this machine),
     and the text-only judge (no rendering). Anchor (SimuScene, arXiv 2602.10840, "Computational
     Overhead of VLM Reward"): about 579 s per training step of 256 rollouts for the VLM reward,
     296 s for the text-only judge.
  2. graded: symbolic (EED) and numeric rollouts, rewards/s serial vs the shared grading pool.
  3. serve: `physeval serve --track numeric` under N requests from C concurrent clients (lost,
     duplicated, p50/p99); a saturated queue (503 + Retry-After); SIGTERM mid-load.

Usage: /work/venv/bin/python bench/rewards.py [--only scene,graded,serve] [--rollouts 256]
       [--graded 2048] [--requests 10000] [--clients 64] [--judge-delay 2]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _scene_programs import BROKEN, GOOD, SLOW, fenced, judge_script  # noqa: E402
from physeval.rewards import SceneRewardOptions, SymbolicRewardOptions, score_batch  # noqa: E402
from physeval.rewards.executors import LocalExecutor, RayExecutor  # noqa: E402
from physeval.rewards.loadtest import run_load  # noqa: E402
from physeval.testing import ScriptedServer  # noqa: E402

ANCHOR = "paper: ~579 s per step of 256 rollouts (VLM reward), ~296 s (text-only judge)"


def _scene_batch(n: int) -> tuple[list[str], list[str]]:
    from physeval.scenes.bank_data import load_scene_bank

    bank = [p.id for p in load_scene_bank()]
    kinds = [GOOD] * 5 + [BROKEN] * 2 + [SLOW]  # 5/8 good, 2/8 broken, 1/8 slow (killed at the render timeout)
    return [fenced(kinds[i % len(kinds)]) for i in range(n)], [bank[i % len(bank)] for i in range(n)]


def _line(label: str, n: int, seconds: float, extra: str = "") -> None:
    per_256 = seconds / n * 256
    print(f"  {label:<34} {seconds:8.1f} s  {n / seconds:6.2f} rollouts/s  ({per_256:6.1f} s per 256){extra}",
          flush=True)


def bench_scene(n: int, judge_delay: float, render_timeout: float, concurrency: int,
                configs: set[str] | None = None) -> None:
    print(f"scene: {n} rollouts (5/8 good, 2/8 broken, 1/8 slow > {render_timeout:g} s), scripted judge "
          f"{judge_delay:g} s per request, judge concurrency {concurrency}; {ANCHOR}", flush=True)
    completions, scenes = _scene_batch(n)
    cores = os.cpu_count() or 1
    with ScriptedServer(judge_script(True, delay_s=judge_delay)) as judge:
        options = SceneRewardOptions(judges=("openai/judge",), judge_base_url=judge.base_url,
                                     render_timeout=render_timeout, judge_concurrency=concurrency)
        reference = None
        configs = configs or {"local", "ray", "text"}
        for workers in sorted({1, 2, cores}) if "local" in configs else []:
            executor = LocalExecutor(render_workers=workers)
            try:
                started = time.perf_counter()
                results = score_batch("scene", completions, scenes=scenes, options=options, executor=executor)
                elapsed = time.perf_counter() - started
            finally:
                executor.close()
            reference = reference or [r.reward for r in results]
            rewarded = sum(1 for r in results if r.reward == 1.0)
            _line(f"local, {workers} render worker(s)", n, elapsed, f"  {rewarded} rewarded 1.0")
        if "ray" in configs:
            _ray_scene(completions, scenes, options, reference)
        if "text" not in configs:
            return
        text = SceneRewardOptions(judges=("openai/judge",), judge_base_url=judge.base_url, mode="text",
                                  judge_concurrency=concurrency)
        started = time.perf_counter()
        score_batch("scene", completions, scenes=scenes, options=text)
        _line("text-only judge (no rendering)", n, time.perf_counter() - started)


def _ray_scene(completions: list[str], scenes: list[str], options: SceneRewardOptions,
               reference: list[float | None] | None) -> None:
    try:
        import ray

        from physeval.rewards.local_cluster import NODE_IP, LocalRayCluster, RayClusterError
    except ImportError:
        print("  ray: not installed (skipped)")
        return
    cluster = LocalRayCluster(nodes=2, cpus_per_node=1)
    try:
        address = cluster.start()
        ray.init(address=address, _node_ip_address=NODE_IP, include_dashboard=False, log_to_driver=False)
        nodes = cluster.wait_for_nodes()
        executor = RayExecutor(address=address, node_ip_address=NODE_IP)
        started = time.perf_counter()
        results = score_batch("scene", completions, scenes=scenes, options=options, executor=executor)
        elapsed = time.perf_counter() - started
        rewarded = sum(1 for r in results if r.reward == 1.0)
        same = "not compared" if reference is None else str([r.reward for r in results] == reference)
        _line(f"ray, {nodes} nodes x 1 CPU (ray start)", len(completions), elapsed,
              f"  {rewarded} rewarded 1.0; identical to local: {same}")
    except RayClusterError as exc:
        print(f"  ray: the local cluster did not start ({str(exc)[:200]})")
    finally:
        ray.shutdown()
        cluster.stop()


def bench_graded(n: int) -> None:
    print(f"graded: {n} distinct rollouts per track, serial (this process) vs the shared grading pool "
          f"({os.cpu_count()} workers)", flush=True)
    symbolic = [rf"\boxed{{{a}mg+{b}\frac{{mv_0^2}}{{l}}}}" if i % 3 else rf"\boxed{{{a}m g + {b} m v_0^2/l}}"
                for i, (a, b) in enumerate((1 + i % 7, 1 + i // 7) for i in range(n))]
    numeric = [rf"\boxed{{{25 + (i % 50) / 10:.1f} \mathrm{{m/s}}}}" for i in range(n)]
    q = "A car ... (Results should be expressed with units of $ km/h $, and rounded to 3 significant figures)"
    LocalExecutor().warm()  # the pool's workers are started (and kept) before the clock runs, as in a trainer
    for track, completions, refs, kwargs in (
        ("symbolic", symbolic, [r"2mg+4\frac{mv_0^2}{l}"] * n, {"options": SymbolicRewardOptions(partial_credit=True)}),
        ("numeric", numeric, ["90.0"] * n, {"questions": [q] * n}),
    ):
        started = time.perf_counter()
        pooled = score_batch(track, completions, refs, executor=LocalExecutor(), **kwargs)
        pooled_s = time.perf_counter() - started
        started = time.perf_counter()
        serial = score_batch(track, completions, refs, executor=LocalExecutor(grading_processes=0), **kwargs)
        serial_s = time.perf_counter() - started
        print(f"  {track:<9} serial {serial_s:7.1f} s ({n / serial_s:7.1f}/s)   pooled {pooled_s:7.1f} s "
              f"({n / pooled_s:7.1f}/s)   x{serial_s / pooled_s:.2f}   identical: {pooled == serial}", flush=True)


class _Served:
    def __init__(self, *args: str) -> None:
        command = [sys.executable, "-m", "physeval.cli", "serve", "--port", "0", *args]
        self.process = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(x) for x in self.process.stderr], daemon=True).start()
        self.url = self.wait(r"listening on (http://\S+)").group(1)
        self.wait(r"ready")

    def wait(self, pattern: str, timeout: float = 180) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                match = re.search(pattern, self.lines.get(timeout=1))
            except queue.Empty:
                continue
            if match:
                return match
        raise RuntimeError(f"physeval serve never said {pattern!r}")

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(120)


def bench_serve(requests: int, clients: int) -> None:
    import httpx

    q = "How fast is the probe? (Results should be expressed with units of $ km/s $)"
    cases = [(r"\boxed{30000 m/s}", 1.0), (r"\boxed{3 m/s}", 0.0), (r"\boxed{30}", 1.0)]
    print(f"serve: physeval serve --track numeric, {requests} requests from {clients} clients", flush=True)
    served = _Served("--track", "numeric")
    try:
        payloads = [{"id": i, "completions": [cases[i % 3][0]], "references": ["30"], "questions": [q]}
                    for i in range(requests)]
        report = asyncio.run(run_load(f"{served.url}/score", payloads, clients=clients,
                                      expected=lambda p: [cases[p["id"] % 3][1]]))
        metrics = httpx.get(f"{served.url}/metrics").json()
        print(f"  {report.summary()}")
        print(f"  server: requests {metrics['requests']}, responses {metrics['responses']}, "
              f"p50 {metrics['latency_s']['p50'] * 1000:.1f} ms, p99 {metrics['latency_s']['p99'] * 1000:.1f} ms")
    finally:
        print(f"  exit status after SIGTERM: {served.stop()}")
    with ScriptedServer(judge_script(True, delay_s=0.5)) as judge:
        judge_args = ("--track", "scene", "--judge", "openai/judge", "--judge-base-url", judge.base_url,
                      "--judge-mode", "text")
        served = _Served(*judge_args, "--queue-size", "8", "--concurrency", "2", "--retry-after", "2")
        try:
            async def burst() -> list[httpx.Response]:
                body = {"completions": [fenced(GOOD)], "scenes": ["em-lorentz-circle"]}
                async with httpx.AsyncClient(timeout=60) as http:
                    return await asyncio.gather(*(http.post(f"{served.url}/score", json={**body, "id": i})
                                                  for i in range(64)))

            responses = asyncio.run(burst())
            refused = [r for r in responses if r.status_code == 503]
            after = sorted({str(r.headers.get("Retry-After")) for r in refused})
            print(f"  saturated (queue 8, concurrency 2, 64 at once): {len(responses) - len(refused)} answered 200, "
                  f"{len(refused)} answered 503 with Retry-After {after}")
        finally:
            served.stop()
        served = _Served(*judge_args, "--concurrency", "16")
        stopper = threading.Event()

        def on_answer(count: int) -> None:
            if count == 50 and not stopper.is_set():
                stopper.set()
                served.process.send_signal(signal.SIGTERM)

        payloads = [{"id": i, "completions": [fenced(GOOD)], "scenes": ["em-lorentz-circle"]} for i in range(1000)]
        report = asyncio.run(run_load(f"{served.url}/score", payloads, clients=clients, on_answer=on_answer,
                                      max_503_retries=0))
        status = served.process.wait(120)
        line = served.wait(r"stopped; .*")
        print(f"  SIGTERM after 50 answers: {line.group(0)}; exit status {status}")
        print(f"  client: {report.summary()} (the unanswered ones were refused a connection after the signal)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="scene,graded,serve")
    parser.add_argument("--rollouts", type=int, default=256)
    parser.add_argument("--graded", type=int, default=2048)
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--judge-delay", type=float, default=2.0)
    parser.add_argument("--render-timeout", type=float, default=3.0)
    parser.add_argument("--judge-concurrency", type=int, default=64)
    parser.add_argument("--scene-configs", default="local,ray,text", help="which scene runs: local, ray, text")
    args = parser.parse_args()
    parts = set(args.only.split(","))
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}", flush=True)
    if "serve" in parts:
        bench_serve(args.requests, args.clients)
    if "scene" in parts:
        bench_scene(args.rollouts, args.judge_delay, args.render_timeout, args.judge_concurrency,
                    set(args.scene_configs.split(",")))
    if "graded" in parts:
        bench_graded(args.graded)


if __name__ == "__main__":
    main()
