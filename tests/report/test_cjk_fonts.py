"""Chinese text in the reports: the plots draw it with a CJK font when one is installed, the page
names the font chain, and where no CJK font exists the report says so (issue 36: boxes).

The glyph test needs a CJK font (Debian: fonts-noto-cjk) and skips without one; the note test
checks whichever case this machine is in.
"""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("matplotlib")

from physeval.report import plots  # noqa: E402
from physeval.report.fonts import CJK_FAMILIES, cjk_families, has_cjk, missing_cjk_font_note  # noqa: E402
from physeval.report.html.page import document  # noqa: E402

CHINESE = {"力学 (mechanics)": 12, "电磁学": 7, "热学": 3}


def test_a_plot_with_chinese_labels_misses_no_glyph() -> None:
    if not cjk_families():
        pytest.skip("no CJK font installed (Debian: apt-get install fonts-noto-cjk)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        png = plots.count_bars(CHINESE, "题目数量 by domain")
    assert png and png.startswith(b"\x89PNG")
    missing = [str(w.message) for w in caught if "missing from font" in str(w.message) or "Glyph" in str(w.message)]
    assert missing == []


def test_the_page_names_the_cjk_font_chain() -> None:
    page = document("报告", "run", ["<header><h1>报告</h1></header>"])
    assert all(f'"{family}"' in page for family in CJK_FAMILIES[:4])


def test_a_chinese_report_says_when_no_cjk_font_is_installed() -> None:
    page = document("报告", "run", ["<header><h1>报告</h1></header>"])
    note = missing_cjk_font_note("报告")
    assert (note is None) == bool(cjk_families())
    assert ("fonts-noto-cjk" in page) == (note is not None)
    assert missing_cjk_font_note("an English report") is None and has_cjk("热学") and not has_cjk("thermo")
