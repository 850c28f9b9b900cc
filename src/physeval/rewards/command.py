"""The ``physeval serve`` subcommand: flags -> :class:`~physeval.rewards.service.ServiceOptions` -> serve."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_serve_parser"]


def add_serve_parser(sub: Any) -> None:
    """Add ``serve`` to the ``physeval`` subparsers."""
    serve = sub.add_parser(
        "serve", help="serve rewards over HTTP (numeric, symbolic or scene)",
        description="An HTTP reward service: POST /score (completions + references or scene ids), "
                    "POST /get_reward (OpenRLHF's remote reward model), GET /health, GET /metrics. "
                    "A full queue answers 503 with Retry-After; SIGTERM finishes the requests in flight.")
    serve.add_argument("--track", choices=["numeric", "symbolic", "scene"], required=True)
    serve.add_argument("--executor", choices=["local", "ray"], default="local",
                       help="where gradings, renders and judge calls run (default local)")
    serve.add_argument("--ray-address", help="ray.init address for --executor ray (default: a local Ray)")
    serve.add_argument("--ray-node-ip", help="this machine's Ray node address, when not the default one")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 = any free port)")
    serve.add_argument("--queue-size", type=int, default=1024, help="requests that may wait (default 1024)")
    serve.add_argument("--concurrency", type=int, default=64, help="requests scored at once (default 64)")
    serve.add_argument("--request-timeout", type=float, default=600.0,
                       help="seconds before a request is answered as not measured: null rewards, outcome timeout "
                            "(default 600)")
    serve.add_argument("--max-body-mb", type=float, default=64.0,
                       help="largest request body in MiB; a larger one is answered 413 (default 64)")
    serve.add_argument("--retry-after", type=int, default=1, help="Retry-After seconds of a 503 (default 1)")
    serve.add_argument("--graceful-timeout", type=float, help="seconds to finish in-flight work on SIGTERM "
                       "(default: wait for all of it)")
    serve.add_argument("--partial-credit", action="store_true", help="symbolic: EED / 100 for a wrong expression")
    serve.add_argument("--rel-tol", type=float, default=0.01, help="numeric: relative tolerance (default 0.01)")
    serve.add_argument("--judge", action="append", default=[], metavar="SPEC",
                       help="scene: reward judge model spec (repeat for an ensemble; the paper trains with three)")
    serve.add_argument("--eval-judge", action="append", default=[], metavar="SPEC",
                       help="scene: the evaluation's judge (recorded in /health, never used for reward)")
    serve.add_argument("--judge-base-url", help="scene: judge server URL")
    serve.add_argument("--judge-mode", choices=["frames", "video", "text"], default="frames")
    serve.add_argument("--aggregation", choices=["binary", "ratio"], default="binary")
    serve.add_argument("--render-timeout", type=float, default=120.0, help="scene: seconds per program")
    serve.add_argument("--render-workers", type=int, help="scene: render processes (default: one per core)")
    serve.add_argument("--judge-concurrency", type=int, default=32, help="scene: judge requests in flight")
    serve.add_argument("--sandbox", default="auto", help="scene: sandbox backend (default auto)")
    serve.set_defaults(func=_cmd_serve)


def _cmd_serve(args: argparse.Namespace) -> int:
    from physeval.errors import UserError
    from physeval.rewards.batch import NumericRewardOptions, SymbolicRewardOptions
    from physeval.rewards.scene import SceneRewardOptions
    from physeval.rewards.service import ServiceOptions, serve

    if args.track == "scene" and not args.judge:
        raise UserError("physeval serve --track scene needs at least one --judge SPEC")
    scene = SceneRewardOptions(judges=tuple(args.judge), eval_judges=tuple(args.eval_judge),
                               judge_base_url=args.judge_base_url, mode=args.judge_mode, aggregation=args.aggregation,
                               render_timeout=args.render_timeout, sandbox=args.sandbox,
                               judge_concurrency=args.judge_concurrency)
    options = ServiceOptions(track=args.track, executor=args.executor, ray_address=args.ray_address,
                             ray_node_ip=args.ray_node_ip,
                             queue_size=args.queue_size, concurrency=args.concurrency,
                             request_timeout=args.request_timeout, retry_after_s=args.retry_after,
                             max_body_bytes=max(1, round(args.max_body_mb * 1024 * 1024)),
                             render_workers=args.render_workers, numeric=NumericRewardOptions(rel_tol=args.rel_tol),
                             symbolic=SymbolicRewardOptions(partial_credit=args.partial_credit), scene=scene)
    serve(options, host=args.host, port=args.port, graceful_timeout=args.graceful_timeout)
    return 0
