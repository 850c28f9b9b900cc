"""A documentation page's Python block, made checkable: each value the page states gets recorded.

Why: a page's ``expr  # True`` is a claim about what the line gives; the docs test checks it.
:func:`instrument` rewrites the block so that every expression statement whose comment states
a value (see tests/_docs_blocks.py) is evaluated through a recorder, which writes what it saw
(by the page's line number) as JSON to ``$DOCS_TEST_SHOWN`` when the script ends. The rewritten
block still runs as a plain script (``python FILE``), so worker processes it starts re-import it
as the reader's own script would be.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

__all__ = ["instrument", "stated_values"]

VALUE_LIKE = re.compile(r"^(?:[-+\d\[\(\{'\"]|True\b|False\b|None\b)")

PRELUDE = '''\
import atexit as __docs_atexit, contextlib as __docs_contextlib, io as __docs_io, json as __docs_json
import os as __docs_os, sys as __docs_sys
__docs_seen = {}


def __docs_show(line, thunk, printed):
    if printed:
        buffer = __docs_io.StringIO()
        with __docs_contextlib.redirect_stdout(buffer):
            thunk()
        __docs_sys.stdout.write(buffer.getvalue())
        __docs_seen.setdefault(str(line), []).extend(buffer.getvalue().splitlines())
        return None
    value = thunk()
    shown = [repr(value)] + ([", ".join(map(repr, value))] if isinstance(value, tuple) else [])
    __docs_seen.setdefault(str(line), []).append(shown)
    return value


def __docs_save():
    with open(__docs_os.environ["DOCS_TEST_SHOWN"], "w", encoding="utf-8") as out:
        __docs_json.dump(__docs_seen, out)


if __name__ == "__main__" and "DOCS_TEST_SHOWN" in __docs_os.environ:
    __docs_atexit.register(__docs_save)
'''


def stated_values(source: str) -> dict[int, str]:
    """Line number -> the value its trailing comment states (comments that read like a value)."""
    stated = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            text = token.string[1:].strip()
            if VALUE_LIKE.match(text):
                stated[token.start[0]] = text
    return stated


class _Recorder(ast.NodeTransformer):
    def __init__(self, lines: set[int]) -> None:
        self.lines = lines

    def visit_Expr(self, node: ast.Expr) -> ast.AST:  # noqa: N802 - the visitor's naming
        line = node.end_lineno or node.lineno
        if line not in self.lines:
            return node
        printed = (isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                   and node.value.func.id == "print")
        thunk = ast.Lambda(ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
                           node.value)
        call = ast.Call(ast.Name("__docs_show", ast.Load()),
                        [ast.Constant(line), thunk, ast.Constant(printed)], [])
        return ast.copy_location(ast.Expr(call), node)


def instrument(source: str) -> tuple[str, dict[int, str]]:
    """The block rewritten to record its stated values, and those values by line."""
    stated = stated_values(source)
    tree = _Recorder(set(stated)).visit(ast.parse(source))
    body = ast.unparse(ast.fix_missing_locations(tree))
    future = [line for line in body.splitlines() if line.startswith("from __future__")]
    rest = [line for line in body.splitlines() if not line.startswith("from __future__")]
    return "\n".join([*future, PRELUDE, *rest]) + "\n", stated
