"""Task options on the command line: flags generated from the tasks' ``Options``, ``-T``, ``--config`` files."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from physeval.errors import UserError


def _option_specs() -> dict[str, tuple[str, list[Any], list[str]]]:
    """Every option some registered task declares: name -> (help, distinct types, task names)."""
    from physeval.tasks.options import option_fields
    from physeval.tasks.registry import task_classes

    specs: dict[str, tuple[str, list[Any], list[str]]] = {}
    for task_name, cls in task_classes().items():
        for f, hint in option_fields(cls.Options):
            if f.name in ("data", "prompt_file"):
                continue
            text = str(f.metadata.get("help", ""))
            help_text, hints, tasks = specs.setdefault(f.name, (text, [], []))
            if hint not in hints:
                hints.append(hint)
                if len(hints) > 1 and text not in help_text:  # one flag, tasks with their own meaning: say each
                    specs[f.name] = (f"{help_text}; {text}", hints, tasks)
            tasks.append(task_name)
    return specs


def _add_task_options(p: argparse.ArgumentParser) -> None:
    """``--data``, ``--prompt-file``, ``-T KEY=VALUE`` and one flag per option any task declares.

    Flags are generated from the tasks' ``Options`` dataclasses (help text from the fields), so an
    option exists here as soon as a task declares it; values are typed by the chosen task.
    """
    from physeval.tasks.options import describe_type

    g = p.add_argument_group("task options (each task checks its own; `physeval tasks --options` lists them)")
    g.add_argument("--data", help="dataset file or folder (tasks that need one)")
    g.add_argument("--prompt-file", help="prompt template file with a {question} placeholder")
    g.add_argument("-T", "--task-option", action="append", dest="task_option", metavar="KEY=VALUE",
                   help="any option of the task, typed by it (repeatable), e.g. -T rel_tol=0.02")
    for name, (help_text, hints, tasks) in sorted(_option_specs().items()):
        flag = "--" + name.replace("_", "-")
        shown = ", ".join(tasks) if len(tasks) <= 3 else f"{len(tasks)} tasks"
        kind = " | ".join(dict.fromkeys(describe_type(h) for h in hints))
        text = f"{help_text} ({shown})"
        if hints == [bool]:
            g.add_argument(flag, dest=name, action="store_true", default=None, help=text)
        elif kind.startswith("list of"):
            g.add_argument(flag, dest=name, action="append", metavar=kind.removeprefix("list of ").upper(), help=text)
        else:
            g.add_argument(flag, dest=name, metavar=kind.upper().replace(" ", ""), help=text)


def _task_options(args: argparse.Namespace) -> dict[str, Any]:
    """The task options given on the command line (flags and ``-T``), as raw values the task types."""
    options: dict[str, Any] = {}
    if getattr(args, "data", None):
        options["data"] = args.data
    if getattr(args, "prompt_file", None):
        options["prompt_file"] = args.prompt_file
    for name in _option_specs():
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
