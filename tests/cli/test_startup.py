"""Commands that only describe physeval start at once: they import nothing heavy.

Each command runs in a fresh interpreter (``python -m physeval``, exactly as a user types it);
the child reports which of the heavy libraries it had imported when the command returned.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("openai", "sympy", "pint", "matplotlib", "av", "ray", "fastapi", "llama_cpp", "cyllama", "numpy")

_PROBE = """
import json, sys
from physeval.cli import main
try:
    status = main(sys.argv[1:])
except SystemExit as exc:
    status = exc.code
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(json.loads(sys.stdin.read())))
sys.stderr.write("\\nIMPORTED " + json.dumps(heavy) + "\\n")
sys.exit(status or 0)
"""


def _imports_of(*argv: str) -> tuple[list[str], str]:
    done = subprocess.run([sys.executable, "-c", _PROBE, *argv], input=json.dumps(HEAVY), capture_output=True,
                          text=True, check=True)
    line = [x for x in done.stderr.splitlines() if x.startswith("IMPORTED ")][-1]
    return json.loads(line[len("IMPORTED "):]), done.stdout


@pytest.mark.parametrize("argv", [("--version",), ("--help",), ("run", "--help"), ("tasks",)])
def test_describing_commands_import_no_heavy_library(argv: tuple[str, ...]) -> None:
    imported, out = _imports_of(*argv)
    assert imported == [], f"physeval {' '.join(argv)} imported {imported}"
    assert out.strip()


def test_python_dash_m_physeval_is_the_console_script() -> None:
    done = subprocess.run([sys.executable, "-m", "physeval", "--version"], capture_output=True, text=True, check=True)
    assert done.stdout.startswith("physeval ")
    listing = subprocess.run([sys.executable, "-m", "physeval", "tasks"], capture_output=True, text=True, check=True)
    assert "bank-numeric" in listing.stdout and "phybench-poison" in listing.stdout
