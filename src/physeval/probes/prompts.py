"""The probes' prompts: text files shipped in ``physeval/probes/prompts``, each replaceable by a file.

Placeholders are ``{name}`` and are filled by plain replacement (the prompts hold JSON braces).
"""

from __future__ import annotations

from pathlib import Path

from physeval.errors import OptionError

__all__ = ["PROMPT_DIR", "fill", "load_prompt"]

PROMPT_DIR = Path(__file__).resolve().parent / "prompts"

_REQUIRED = {
    "process_judge": ("{reference_solution}", "{response}"),
    "poison_continue": ("{question}", "{partial_solution}"),
    "poison_judge": ("{partial_solution}", "{response}"),
    "equivalence_judge": ("{reference}", "{candidate}"),
}


def load_prompt(name: str, override: str | Path | None = None) -> str:
    """The shipped prompt ``name`` or the text of ``override`` (a file), checked for its placeholders.

    Raises :class:`~physeval.errors.OptionError` when the override is missing or lacks a required placeholder.
    """
    path = Path(override).expanduser() if override else PROMPT_DIR / f"{name}.txt"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise OptionError(f"cannot read the {name} prompt {path}: {exc}") from None
    missing = [p for p in _REQUIRED.get(name, ()) if p not in text]
    if missing:
        raise OptionError(f"the {name} prompt {path} lacks {', '.join(missing)}")
    return text


def fill(template: str, **values: str) -> str:
    """``template`` with each ``{key}`` replaced by its value."""
    for key, value in values.items():
        template = template.replace("{" + key + "}", value)
    return template
