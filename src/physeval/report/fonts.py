"""Fonts for Chinese text in the reports' plots and pages: a named fallback chain, or a clear note.

Why: ABench and PHYBench problems, tags and model names can be Chinese. Matplotlib's default
DejaVu Sans has no CJK glyphs, so such text drew as empty boxes (with a "Glyph ... missing from
font" warning), and a page whose CSS named no CJK font was left to the browser's luck. The plots
use :data:`CJK_FAMILIES` after DejaVu Sans when one of them is installed (Matplotlib falls back
glyph by glyph along ``font.family``), including fonts installed after Matplotlib built its font
cache; the HTML names the same chain. Where none is installed, :func:`missing_cjk_font_note` says
so and what to install (Debian: ``fonts-noto-cjk``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

__all__ = ["CJK_FAMILIES", "CSS_FONT_STACK", "cjk_families", "has_cjk", "missing_cjk_font_note", "plot_families"]

CJK_FAMILIES = ("Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans SC", "Source Han Sans SC", "Source Han Sans CN",
                "WenQuanYi Zen Hei", "WenQuanYi Micro Hei", "Droid Sans Fallback", "Microsoft YaHei", "PingFang SC",
                "SimHei", "Noto Serif CJK SC", "AR PL UMing CN")
"""Fonts with Chinese glyphs, in order of preference (the first installed one is used)."""

CSS_FONT_STACK = "system-ui, " + ", ".join(f'"{f}"' for f in CJK_FAMILIES[:10]) + ", sans-serif"
"""The reports' CSS ``font-family``: the system font, then the CJK fonts by name."""

_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
_FILE_HINTS = ("cjk", "wqy", "droidsansfallback", "sourcehansans", "notosanssc", "msyh", "simhei", "pingfang",
               "uming")


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds Chinese (or other CJK) characters."""
    return _CJK.search(text) is not None


@lru_cache(maxsize=1)
def cjk_families() -> tuple[str, ...]:
    """The installed fonts of :data:`CJK_FAMILIES` Matplotlib can use, in that order.

    Fonts installed after Matplotlib cached its font list are found on disk and added.
    """
    from matplotlib import font_manager

    def known() -> set[str]:
        return {entry.name for entry in font_manager.fontManager.ttflist}

    if not known() & set(CJK_FAMILIES):
        for path in font_manager.findSystemFonts():
            if any(hint in Path(path).name.lower().replace("-", "") for hint in _FILE_HINTS):
                try:
                    font_manager.fontManager.addfont(path)
                except (OSError, RuntimeError, ValueError):  # an unreadable font file: skip it
                    continue
    names = known()
    return tuple(family for family in CJK_FAMILIES if family in names)


def plot_families() -> list[str]:
    """Matplotlib's ``font.family`` for the report plots: DejaVu Sans, then the CJK fonts found."""
    return ["DejaVu Sans", *cjk_families()]


def missing_cjk_font_note(text: str) -> str | None:
    """A note for a report whose ``text`` holds CJK characters when no CJK font is installed."""
    if not has_cjk(text) or cjk_families():
        return None
    return ("Chinese text in this report's plots draws as boxes: no CJK font is installed. Install one "
            "(Debian/Ubuntu: apt-get install fonts-noto-cjk; or any of " + ", ".join(CJK_FAMILIES[:4]) +
            ") and write the report again.")
