"""The runnable blocks of README.md and docs/*.md, and what each page says they print.

Why: a page that shows a command which fails is a bug the reader meets first; test_docs_run.py
runs every block this module finds. A block is a fenced ``bash``/``sh``/``console`` or ``python``
block. Markers, an HTML comment right before the block (invisible on the site, visible in the
source):

- ``<!-- docs-test: skip (REASON) -->``: the block is not run (a GPU server, an install, a
  server that runs until stopped); a file block (below) is still written.

A ``python`` block whose preceding paragraph ends with ```` `NAME.py`: ```` is that file: every
such file of a page is written into the page's directory before its first block runs (the page's
commands use them), then run as ``python NAME.py`` in its turn.

Stated output: in a Python block, a comment after an expression statement that starts like a
value (a digit, a sign, a bracket, a quote, True/False/None) is the value's repr (``...`` matches
anything; a number matches to the digits shown; a tuple may be shown with or without its
parentheses); after a ``print(...)`` it is the printed lines joined by ", ". In a shell block, a
comment after ``ls`` or ``echo`` (also the last command of ``a || echo ...``) names words the
line prints (up to a colon). A ``console`` block
shows ``$ command`` lines and their output; each output line must match a printed line in order
(paths, numbers and sizes are the reader's own, so any path, number and size unit match).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Block", "page_blocks", "value_matches", "console_parts", "line_matches", "stated_words"]

FENCE = re.compile(r"^(\s*)```(\w+)\s*$")
SKIP = re.compile(r"<!--\s*docs-test:\s*skip\s*\((.+)\)\s*-->")
FILE_NAME = re.compile(r"`([\w.-]+\.py)`:\s*$")
LANGS = {"bash": "bash", "sh": "bash", "console": "console", "python": "python"}


@dataclass(frozen=True)
class Block:
    """One runnable block: its page (relative to the repository), first line, kind and text."""

    page: str
    line: int
    kind: str  # bash | console | python
    text: str
    skip: str | None = None
    file_name: str | None = None

    @property
    def id(self) -> str:
        """``page:line``, the test case's name."""
        return f"{self.page}:{self.line}"


def page_blocks(root: Path, page: Path) -> list[Block]:
    """Every runnable block of ``page`` in page order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        indent, lang = fence.groups()
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip().startswith("```"))
        if lang in LANGS:
            body = "\n".join(line[len(indent):] for line in lines[i + 1:end])
            before = [line for line in lines[:i] if line.strip()]
            skip = SKIP.search(before[-1]) if before else None
            named = FILE_NAME.search(before[-1]) if before and LANGS[lang] == "python" else None
            if skip and len(before) > 1 and LANGS[lang] == "python":
                named = FILE_NAME.search(before[-2])
            found.append(Block(str(page.relative_to(root)), i + 1, LANGS[lang], body + "\n",
                               skip.group(1) if skip else None, named.group(1) if named else None))
        i = end + 1
    return found


_NUMBER = r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?"


def value_matches(stated: str, shown: list[str]) -> bool:
    """Whether one of the ``shown`` renderings of a value is what the page ``stated``."""
    return any(_matches(stated.strip(), s) for s in shown)


def _matches(stated: str, actual: str) -> bool:
    pattern, numbers = "", []
    tokens = re.split(rf"(\.\.\.|{_NUMBER}|\s+)", stated)
    for at, token in enumerate(tokens):
        if token == "..." and numbers and tokens[at - 2] == numbers[-1] and tokens[at - 1] == "":
            numbers[-1] += "..."  # 0.9166... : the digits shown, then more
        elif token == "...":
            pattern += ".*?"
        elif re.fullmatch(_NUMBER, token):
            pattern += f"({_NUMBER})"
            numbers.append(token)
        elif token.isspace():
            pattern += r"\s*"
        else:
            pattern += re.escape(token)
    match = re.fullmatch(pattern, actual.strip(), re.DOTALL)
    if not match:
        return False
    for want, got in zip(numbers, match.groups(), strict=True):
        if want.endswith("..."):
            if not got.startswith(want[:-3]):
                return False
            continue
        places = len(want.split(".")[1]) if "." in want and "e" not in want else 0
        if "e" in want.lower() or "e" in got.lower():
            if abs(float(want) - float(got)) > 1e-9 * max(1.0, abs(float(want))):
                return False
        elif abs(round(float(got), places) - float(want)) > 10 ** -places / 2:
            return False
    return True


def console_parts(text: str) -> list[tuple[str, list[str]]]:
    """A console block as (command, the output lines shown after it)."""
    parts: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            parts.append((line[2:], []))
        elif parts and line.strip():
            parts[-1][1].append(line)
    return parts


def line_matches(shown: str, printed: str) -> bool:
    """Whether an output line the page shows matches a printed line (any path, any number)."""
    words = []
    for word in shown.split():
        if "/" in word or "..." in word:
            words.append(r"\S+")
        elif re.fullmatch(r"[KMGT]?i?B,?", word):  # a size in any unit
            words.append(r"[KMGT]?i?B" + ("," if word.endswith(",") else ""))
        else:  # a number shown stands for any number
            words.append(re.sub(r"\d+(?:\\\.\d+)?", lambda _m: r"\d+(?:\.\d+)?", re.escape(word)))
    return re.fullmatch(r"\s*" + r"\s+".join(words) + r"\s*", printed) is not None


def stated_words(command_line: str) -> list[str]:
    """The words an ``ls``/``echo`` line's comment says it prints (up to a colon), else none."""
    command, sep, comment = command_line.partition("  #")
    last = re.split(r"\|\||&&|;", command)[-1]  # `cmd || echo "exit status $?"`: the echo prints
    if not sep or last.split()[:1] not in (["ls"], ["echo"]):
        return []
    return comment.split(":")[0].split()
