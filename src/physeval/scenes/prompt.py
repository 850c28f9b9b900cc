"""The scene prompt and the extraction of the program from a model's reply.

Why: the scene track asks a model for a self-contained Python program that renders an MP4
of a physical scenario. The prompt states the exact contract the sandbox enforces (output
path as the first argument, libraries available, no network, no installs) so that a failure
to render is the model's, not the prompt's.
"""

from __future__ import annotations

import re
from typing import Literal

from physeval.answers.extract import strip_reasoning

__all__ = ["SCENE_SYSTEM_PROMPT", "scene_prompt", "extract_code", "CodePick"]

CodePick = Literal["first", "last", "longest"]

SCENE_SYSTEM_PROMPT = """\
You write Python programs that render physically accurate animations.

Write ONE self-contained Python 3 program that simulates the scenario below and renders it \
as an MP4 video.

Requirements:
- Write the MP4 to the file path given as the program's first command-line argument \
(sys.argv[1]). Do not write anywhere else.
- 30 frames per second, 10 to 20 seconds long, at least 640x360 pixels.
- Draw a time stamp (the simulated time in seconds) and the physical parameters you use on \
every frame.
- The motion must follow the physics of the scenario (correct laws, plausible parameter \
values, consistent units), and the elements the scenario describes must be clearly visible.
- Available libraries, and only these besides the Python standard library: numpy, \
matplotlib (use the Agg backend), opencv-python-headless (cv2), imageio with imageio-ffmpeg, \
PyAV (av), scipy.
- There is no network access and nothing can be installed. No interactive windows, no \
input(): the program runs unattended and must finish within two minutes.

Reply with the complete program in a single ```python fenced code block."""

_FENCE = re.compile(
    r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*(?P<lang>[\w+.-]*)[^\n]*\n(?P<body>.*?)^[ \t]*(?P=fence)[ \t]*$",
    re.DOTALL | re.MULTILINE,
)
_PY_LANGS = {"python", "py", "python3", "py3"}


def scene_prompt(question: str) -> list[dict[str, str]]:
    """Chat messages asking for a program that renders the scenario ``question`` as an MP4."""
    user = f"Scenario:\n{question.strip()}\n\nWrite the program now."
    return [
        {"role": "system", "content": SCENE_SYSTEM_PROMPT},
        {"role": "user", "content": user},
    ]


def extract_code(response: str, *, pick: CodePick = "first") -> str | None:
    """The program in ``response``: a fenced python block chosen by ``pick``, or ``None``.

    ``<think>`` spans are dropped first (reasoning is never run). Blocks tagged ``python``
    (or ``py``/``python3``) are preferred; untagged fences count only when no tagged block
    exists. An unterminated final ```python fence (a truncated reply) is taken to the end.
    ``None`` means no code: the caller records outcome ``no_code``.
    """
    if pick not in ("first", "last", "longest"):
        raise ValueError(f"pick must be 'first', 'last' or 'longest', not {pick!r}")
    text = strip_reasoning(response or "")
    tagged: list[str] = []
    untagged: list[str] = []
    end = 0
    for match in _FENCE.finditer(text):
        lang = match.group("lang").lower()
        body = match.group("body")
        if lang in _PY_LANGS:
            tagged.append(body)
        elif not lang:
            untagged.append(body)
        end = match.end()
    if not tagged:
        tail = re.search(r"^[ \t]*```[ \t]*(?:python3?|py3?)[ \t]*\n(?P<body>.*)\Z", text[end:], re.M | re.S)
        if tail:
            tagged.append(tail.group("body"))
    blocks = [b for b in (tagged or untagged) if b.strip()]
    if not blocks:
        return None
    if pick == "first":
        chosen = blocks[0]
    elif pick == "last":
        chosen = blocks[-1]
    else:
        chosen = max(blocks, key=len)
    return chosen.rstrip() + "\n"
