"""The prompt of every model-facing stage, as a text file a user can replace.

The shipped prompts are ``prompts/<stage>.txt`` in this package, written as
:class:`string.Template` text (``$concept``, ``$scenario``...; JSON braces need no escaping).
``--prompt STAGE=FILE`` replaces one; a replacement may use the same placeholders, and one it
names that the stage does not fill is an :class:`~physeval.errors.OptionError` at load time, not
a failure halfway through a build.
"""

from __future__ import annotations

import hashlib
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from physeval.errors import DataNotFoundError, OptionError

__all__ = ["PROMPT_DIR", "PROMPT_FIELDS", "Prompts", "load_prompts"]

PROMPT_DIR = Path(__file__).resolve().parent / "prompts"

PROMPT_FIELDS: dict[str, frozenset[str]] = {
    "basic": frozenset({"domain", "concept", "description", "n", "n_conditions"}),
    "compose": frozenset({"domain", "concept", "basic", "conditions", "level"}),
    "plausibility": frozenset({"domain", "concept", "scenario"}),
    "questions": frozenset({"domain", "concept", "scenario"}),
    "review": frozenset({"domain", "concept", "scenario", "questions"}),
    "revise": frozenset({"domain", "concept", "scenario", "questions", "missing"}),
    "repair": frozenset({"error"}),
}
"""Each prompt's placeholders (``repair`` is the follow-up sent after an unusable reply)."""


@dataclass(frozen=True)
class Prompts:
    """The prompt texts by stage name, and where each came from."""

    texts: Mapping[str, str]
    sources: Mapping[str, str] = field(default_factory=dict)

    def render(self, name: str, **values: object) -> str:
        """The prompt ``name`` with its placeholders filled."""
        return string.Template(self.texts[name]).substitute({k: str(v) for k, v in values.items()}).strip()

    def digest(self) -> str:
        """A hash of every text: part of a build's settings, so a changed prompt is noticed on resume."""
        joined = "\0".join(f"{k}\0{self.texts[k]}" for k in sorted(self.texts))
        return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:16]


def load_prompts(overrides: Mapping[str, str | Path] | None = None) -> Prompts:
    """The shipped prompts with ``overrides`` (stage name -> file) put in their place."""
    texts: dict[str, str] = {}
    sources: dict[str, str] = {}
    for name in PROMPT_FIELDS:
        path = PROMPT_DIR / f"{name}.txt"
        texts[name], sources[name] = path.read_text(encoding="utf-8"), "built-in"
    for name, file in (overrides or {}).items():
        if name not in PROMPT_FIELDS:
            raise OptionError(f"--prompt {name}=...: no such prompt; use one of {', '.join(PROMPT_FIELDS)}")
        path = Path(file)
        if not path.is_file():
            raise DataNotFoundError(f"--prompt {name}={file}: file not found")
        text = path.read_text(encoding="utf-8")
        _check_fields(name, text, str(path))
        texts[name], sources[name] = text, str(path)
    return Prompts(texts, sources)


def _check_fields(name: str, text: str, where: str) -> None:
    template = string.Template(text)
    if not template.is_valid():
        raise OptionError(f"{where}: a '$' that is not a placeholder (write $$ for a dollar sign)")
    unknown = set(template.get_identifiers()) - PROMPT_FIELDS[name]
    if unknown:
        raise OptionError(f"{where}: the {name} prompt has no placeholder {', '.join(sorted(unknown))}; "
                          f"it can use {', '.join(sorted(PROMPT_FIELDS[name]))}")
