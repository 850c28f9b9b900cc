"""Task options on the command line: flags generated from the tasks' ``Options``, ``-T``, ``--config`` files."""

from __future__ import annotations

import argparse
import json
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from physeval.errors import UserError

_CHOSEN_TASK: ContextVar[str | None] = ContextVar("physeval_cli_task", default=None)
_TASK_FLAGS: ContextVar[tuple[str, ...]] = ContextVar("physeval_cli_task_flags", default=())


def choose_task(task: str | None) -> None:
    """The task whose options the parser built next offers as flags (``None``: only ``-T``)."""
    _CHOSEN_TASK.set(task)
    _TASK_FLAGS.set(())


def _task_option_specs(task: str) -> list[tuple[str, str, Any]]:
    """``(name, help, type)`` of each option ``task`` declares (its module is imported, no other)."""
    from physeval.tasks.options import option_fields
    from physeval.tasks.registry import task_class

    try:
        cls = task_class(task)
    except Exception:  # noqa: BLE001 - an unknown task is reported when the command runs, with suggestions
        return []
    return [(f.name, str(f.metadata.get("help", "")), hint) for f, hint in option_fields(cls.Options)
            if f.name not in ("data", "prompt_file")]


def _add_task_options(p: argparse.ArgumentParser) -> None:
    """``--data``, ``--prompt-file``, ``-T KEY=VALUE`` and one flag per option of the chosen task.

    Only the task named on the command line contributes flags (generated from its ``Options``
    dataclass, help text from the fields), so ``physeval run phybench --help`` lists phybench's
    options and no other task's, and ``physeval run --help`` imports no task at all.
    """
    task = _CHOSEN_TASK.get()
    title = (f"options of the task {task} (also as -T KEY=VALUE)" if task else
             "task options (a task's own: `physeval run TASK --help`)")
    g = p.add_argument_group(title)
    g.add_argument("--data", metavar="PATH", help="dataset file or folder (tasks that need one)")
    g.add_argument("--prompt-file", metavar="FILE", help="prompt template with a {question} placeholder")
    g.add_argument("-T", "--task-option", action="append", dest="task_option", metavar="K=V",
                   help="a task option (repeatable), e.g. -T rel_tol=0.02")
    if not task:
        return
    from physeval.tasks.options import describe_type

    names = []
    for name, help_text, hint in _task_option_specs(task):
        flag = "--" + name.replace("_", "-")
        kind = describe_type(hint)
        if hint is bool:
            g.add_argument(flag, dest=name, action="store_true", default=None, help=help_text)
        elif kind.startswith("list of"):
            g.add_argument(flag, dest=name, action="append", metavar=kind.removeprefix("list of ").upper(),
                           help=help_text)
        else:
            g.add_argument(flag, dest=name, metavar=kind.upper().replace(" ", ""), help=help_text)
        names.append(name)
    _TASK_FLAGS.set(tuple(names))


def _task_options(args: argparse.Namespace) -> dict[str, Any]:
    """The task options given on the command line (flags and ``-T``), as raw values the task types."""
    options: dict[str, Any] = {}
    if getattr(args, "data", None):
        options["data"] = args.data
    if getattr(args, "prompt_file", None):
        options["prompt_file"] = args.prompt_file
    for name in _TASK_FLAGS.get():
        value = getattr(args, name, None)
        if value is not None:
            options[name] = value
    for item in getattr(args, "task_option", None) or []:
        key, sep, value = str(item).partition("=")
        if not sep or not key.strip():
            raise UserError(f"-T {item!r}: expected KEY=VALUE")
        options[key.strip()] = value
    return options


def _read_run_config(path: str, known: set[str]) -> dict[str, Any]:
    """A ``--config`` YAML: keys are flag names (``max_tokens`` or ``max-tokens``), plus ``task_options``."""
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    except FileNotFoundError:
        raise UserError(f"--config {path}: no such file") from None
    except yaml.YAMLError as exc:
        raise UserError(f"--config {path}: not valid YAML ({exc})") from None
    if not isinstance(data, dict):
        raise UserError(f"--config {path}: expected a mapping of option names to values")
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = str(key).replace("-", "_")
        if name == "task_options":
            if not isinstance(value, dict):
                raise UserError(f"--config {path}: task_options must be a mapping")
            out["task_option"] = [f"{k}={_option_text(v)}" for k, v in value.items()]
        elif name in known and name not in ("help", "func", "config"):
            out[name] = value
        else:
            raise UserError(f"--config {path}: unknown option {key!r}")
    return out


def _option_text(value: Any) -> str:
    return ",".join(str(v) for v in value) if isinstance(value, (list, tuple)) else str(value)


def _extra_body(ns: argparse.Namespace) -> dict[str, Any] | None:
    """``--extra-body JSON`` merged with ``--model-args k=v`` pairs (values parsed as JSON when they parse)."""
    body: dict[str, Any] = {}
    if getattr(ns, "extra_body", None):
        raw = ns.extra_body if isinstance(ns.extra_body, dict) else None
        if raw is None:
            try:
                raw = json.loads(ns.extra_body)
            except json.JSONDecodeError as exc:
                raise UserError(f"--extra-body: not a JSON object ({exc.msg})") from None
        if not isinstance(raw, dict):
            raise UserError("--extra-body: expected a JSON object")
        body.update(raw)
    for item in getattr(ns, "model_args", None) or []:
        key, sep, text = str(item).partition("=")
        if not sep or not key.strip():
            raise UserError(f"--model-args {item!r}: expected KEY=VALUE")
        try:
            body[key.strip()] = json.loads(text)
        except json.JSONDecodeError:
            body[key.strip()] = text
    return body or None
