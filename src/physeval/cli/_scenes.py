"""The scene commands (``sandbox``, ``render``, ``agreement``) and the services built on scenes
(``build``, ``serve``)."""

from __future__ import annotations

import argparse
import json
import sys
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
    sandbox.add_argument("--path", help="where to create the venv (default: sandbox-venv in the data dir, "
                                        "$PHYSEVAL_DATA_DIR or the user data dir)")
    sandbox.add_argument("--sandbox", default="auto",
                         help="backend to check in: auto (default), bwrap, namespaces, none (unsafe)")
    sandbox.add_argument("--force", action="store_true",
                         help="setup: build a new environment even when the current one is complete")
    sandbox.add_argument("--offline", action="store_true",
                         help="setup: install from the wheels an earlier setup downloaded (no package index)")
    sandbox.add_argument("--wheels", help="setup: the wheel folder to download into and install from "
                                          "(default: sandbox-venv.wheels beside the venv)")
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
    """``physeval build scenes | import-review | prompts`` (see :mod:`physeval.scene_builder.command`)."""
    from physeval.scene_builder.command import add_build_parser

    add_build_parser(sub)


def _cmd_sandbox(args: argparse.Namespace) -> int:
    from physeval.scenes.sandbox import isolation_report

    if args.action == "setup":
        return _sandbox_setup(args)
    python = str(Path(args.path).absolute() / "bin" / "python") if args.path else None
    report = isolation_report(args.sandbox, python=python, probe=True)
    print(json.dumps(report, indent=2, default=str))
    if report["mode"] == "unavailable":
        return 1
    return 0 if report.get("verified") else 1  # the environment checked inside the backend, as programs meet it


def _sandbox_setup(args: argparse.Namespace) -> int:
    """``physeval sandbox setup``: build (or keep) the environment, then check it as programs meet it."""
    from physeval.scenes.sandbox import sandbox_venv_path, setup_sandbox_env
    from physeval.scenes.sandbox.report import environment_status
    from physeval.scenes.sandbox.setup import is_set_up

    root = Path(args.path).absolute() if args.path else sandbox_venv_path()
    python = root / "bin" / "python"
    status = None
    if is_set_up(root) and not args.force:
        status = environment_status(str(python), args.sandbox)  # set up is not enough: it must verify
        if status["verified"] is None and status["missing_packages"] is not None:
            print(f"sandbox interpreter {python} does not verify, building a new one: {status['environment_error']}",
                  file=sys.stderr)
            status = None
        else:
            print(f"sandbox interpreter already set up: {python} (--force builds a new one)")
    if status is None:
        python = setup_sandbox_env(root, offline=args.offline, wheels=args.wheels)
        print(f"sandbox interpreter ready: {python}")
        status = environment_status(str(python), args.sandbox)
    if status["verified"]:
        verified = status["verified"]
        print(f"checked under {verified['backend']}: {len(verified['modules_imported'])} libraries import, "
              f"{verified['packages_verified']} locked packages match ({verified['build']})")
    elif status["missing_packages"] is None:  # no sandbox to check in here
        print(f"not checked in a sandbox: {status['environment_error']}", file=sys.stderr)
    else:
        raise UserError(status["environment_error"])
    if args.path:
        print(f"use it with: export PHYSEVAL_SANDBOX_PYTHON={python}")
    return 0


def _cmd_render(args: argparse.Namespace) -> int:
    from physeval.scenes.prompt import extract_code
    from physeval.scenes.render import render_program

    text = Path(args.program).read_text(encoding="utf-8")
    code = extract_code(text) if "```" in text else text
    render = render_program(code, timeout=args.timeout, keep_dir=Path(args.out).resolve(),
                            video_name=Path(args.program).stem + ".mp4", sandbox=args.sandbox)
    print(json.dumps(render.to_dict(), indent=2, default=str))
    if render.stage == "sandbox_error":  # the host's fault, not the program's: a user error with the fix
        raise UserError(f"the program was not run: {render.reason}")
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
