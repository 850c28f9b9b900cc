"""The scene commands (``sandbox``, ``render``, ``agreement``) and the services built on scenes
(``build``, ``serve``)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console

from physeval.errors import UserError


def add_commands(sub: Any) -> None:
    """``sandbox``, ``render``, ``agreement``, ``build`` and ``serve``."""
    _add_scene_commands(sub)
    _add_build_commands(sub)
    _add_serve_command(sub)


def _add_scene_commands(sub: Any) -> None:
    sandbox = sub.add_parser("sandbox", help="prepare or inspect the scene sandbox",
                             description="Prepare (setup) or inspect (check) the isolated interpreter for "
                                         "scene programs.")
    sandbox.add_argument("action", choices=["setup", "check"])
    sandbox.add_argument("--path", help="where to create the venv (default: the user data dir)")
    sandbox.add_argument("--sandbox", default="auto",
                         help="backend to check: auto (default), bwrap, namespaces, none (unsafe)")
    sandbox.set_defaults(func=_cmd_sandbox)

    render = sub.add_parser("render", help="render one scene program in the sandbox",
                            description="Run a Python scene program in the sandbox and report the stage it reached.")
    render.add_argument("program", help="a .py file, or a reply with a fenced python block")
    render.add_argument("--out", default=".", help="directory for the video (default: here)")
    render.add_argument("--timeout", type=float, default=120.0, help="wall-clock seconds (default 120)")
    render.add_argument("--sandbox", default="auto",
                        help="sandbox backend: auto (default), bwrap, namespaces, none (unsafe)")
    render.set_defaults(func=_cmd_render)

    agreement = sub.add_parser("agreement", help="judge-vs-human agreement (SimuScene Table 6)",
                               description="Compare a scene run's judge verdicts with human labels "
                                           "(CSV columns: id, sample, index, label).")
    agreement.add_argument("run_dir")
    agreement.add_argument("--human", required=True, help="LABELS.csv")
    agreement.set_defaults(func=_cmd_agreement)


def _add_serve_command(sub: Any) -> None:
    """``physeval serve`` (see :mod:`physeval.rewards.command`)."""
    from physeval.rewards.command import add_serve_parser

    add_serve_parser(sub)


def _add_build_commands(sub: Any) -> None:
    """``physeval build scenes | import-review | prompts`` (see :mod:`physeval.build.command`)."""
    from physeval.build.command import add_build_parser

    add_build_parser(sub)


def _cmd_sandbox(args: argparse.Namespace) -> int:
    from physeval.scenes.sandbox import isolation_report, sandbox_venv_path, setup_sandbox_env

    if args.action == "setup":
        python = setup_sandbox_env(args.path or sandbox_venv_path())
        print(f"sandbox interpreter ready: {python}")
        if args.path:
            print(f"use it with: export PHYSEVAL_SANDBOX_PYTHON={python}")
        return 0
    report = isolation_report(args.sandbox, probe=True)
    print(json.dumps(report, indent=2, default=str))
    return 1 if report["mode"] == "unavailable" else 0


def _cmd_render(args: argparse.Namespace) -> int:
    from physeval.scenes.prompt import extract_code
    from physeval.scenes.render import render_program

    text = Path(args.program).read_text(encoding="utf-8")
    code = extract_code(text) if "```" in text else text
    render = render_program(code, timeout=args.timeout, keep_dir=Path(args.out).resolve(),
                            video_name=Path(args.program).stem + ".mp4", sandbox=args.sandbox)
    print(json.dumps(render.to_dict(), indent=2, default=str))
    return 0 if render.playable else 1


def _cmd_agreement(args: argparse.Namespace) -> int:
    from physeval.scenes.agreement import (
        agreement_rich_table,
        agreement_table,
        judge_labels_from_verdicts,
        read_human_labels,
    )
    from physeval.store import RunStore

    if not RunStore.exists(args.run_dir):
        raise UserError(f"{args.run_dir}: no physeval run there")
    with RunStore(args.run_dir) as store:
        verdicts = [(r.problem_id, r.sample, r.grade["judge"]) for r in store.rows()
                    if r.grade and r.grade.get("judge")]
    if not verdicts:
        raise UserError(f"{args.run_dir} has no judge verdicts (was it a scene run with --judge?)")
    rows = agreement_table(judge_labels_from_verdicts(verdicts), read_human_labels(args.human))
    Console().print(agreement_rich_table(rows))
    return 0
