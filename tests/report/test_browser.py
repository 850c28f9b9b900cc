"""Every kind of report rendered in headless Chromium: no console errors, key elements visible.

Needs the Debian package ``chromium`` (``.ci/run`` installs it when absent); skips with the
reason where no Chromium can be found. Each page is opened twice, in a 1440 px wide window:
once as written, with Chromium's console routed to stderr (any console line fails the test)
and a screenshot saved under the test's tmp dir; once as a copy with a probe script appended
that records, after the page's own script ran, which key elements have a size on screen,
whether every image decoded, whether any table reaches past the window or hides columns in
its frame, how far down the sample browser starts, and whether the sample filter and pager
work; ``--dump-dom`` hands the record back.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from physeval.report.html import write_html_report, write_multi_report

_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
          "--disable-component-update", "--disable-sync", "--hide-scrollbars"]

KEY_ELEMENTS = {
    "numeric": ["#headline .card", "figure[data-plot='scale-rate'] img", "#outcome-breakdown img",
                "#samples-table tbody tr", "#sample-filters select", "figure[data-plot='pass-at-k'] img"],
    "dynamic": ["#headline .card[data-metric='dynamic_accuracy']", "figure[data-plot='static-dynamic'] img",
                "figure[data-plot='scale-difference'] img"],
    "symbolic": ["#headline .card[data-metric='eed_mean']", "figure[data-plot='scale-score'] img",
                 "figure[data-plot='maj-at-k'] img", "table.fits"],
    "scene": ["#headline .card[data-metric='playable_rate']", "figure[data-plot='funnel'] img",
              "figure[data-plot='scale-tokens'] img"],
    "multi": ["figure.board table", "table.paired", "ol.tiers li", "figure[data-plot='pass-at-k'] img",
              "table.matched", "table.outcome-table"],
    "multi-phybench": ["figure.board[data-layout='phybench'] table", "table.paired", "ol.tiers li"],
}
HIDDEN_UNTIL_OPENED = {"scene": [".frames img", ".verdicts li"]}  # inside the sample browser's <details>

_PROBE = """
<script>
window.addEventListener('load', function () {
  var out = {visible: {}, present: {}, broken_images: 0, filter: null};
  SELECTORS.forEach(function (sel) {
    var el = document.querySelector(sel);
    var r = el ? el.getBoundingClientRect() : null;
    out.visible[sel] = !!(el && r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden');
  });
  PRESENT.forEach(function (sel) { out.present[sel] = document.querySelectorAll(sel).length; });
  document.querySelectorAll('img').forEach(function (img) {
    if (!(img.complete && img.naturalWidth > 0)) { out.broken_images += 1; }
  });
  var width = document.documentElement.clientWidth;
  out.cut_tables = [];
  document.querySelectorAll('table').forEach(function (table, i) {
    var frame = table.closest('.scroll');
    var right = table.getBoundingClientRect().right;
    var hidden = frame ? frame.scrollWidth - frame.clientWidth : 0;
    if (right > width + 1 || hidden > 1) {
      out.cut_tables.push({index: i, cls: table.className || table.id, right: right, hidden: hidden});
    }
  });
  var samples = document.getElementById('samples');
  out.samples_top = samples ? samples.getBoundingClientRect().top + window.scrollY : null;
  out.width = width;
  var select = document.querySelector("#sample-filters select[name='reason']");
  function visibleRows() {
    return Array.prototype.filter.call(document.querySelectorAll('#samples-table tbody tr'),
                                       function (r) { return !r.hidden; });
  }
  if (select && select.options.length > 1) {
    out.first_page = visibleRows().length;
    select.value = select.options[1].value;
    select.dispatchEvent(new Event('change'));
    var rows = document.querySelectorAll('#samples-table tbody tr');
    var shown = visibleRows();
    var matching = Array.prototype.filter.call(rows, function (r) { return r.dataset.reason === select.value; });
    out.filter = {total: rows.length, shown: shown.length, matching: matching.length,
                  counter: document.getElementById('shown-count').textContent,
                  all_match: shown.every(function (r) { return r.dataset.reason === select.value; })};
    select.value = '';
    select.dispatchEvent(new Event('change'));
    var before = visibleRows()[0];
    document.getElementById('page-next').click();
    var after = visibleRows();
    out.pager = {moved: after.length > 0 && after[0] !== before, label: document.getElementById('page-label').textContent};
  }
  var pre = document.createElement('pre');
  pre.id = 'probe-result';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
"""


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no Chromium on this machine (Debian: apt-get install chromium; .ci/run installs it as root)")


def _run(browser: str, args: list[str], tmp: Path) -> subprocess.CompletedProcess[str]:
    profile = tmp / "chromium-profile"
    env = {**os.environ, "HOME": str(tmp)}
    return subprocess.run([browser, *_FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                          timeout=180, env=env, check=False)


def _check_page(page: Path, kind: str, tmp: Path) -> dict:  # type: ignore[type-arg]
    browser = _chromium()
    screenshot = tmp / f"{kind}-report.png"
    shown = _run(browser, ["--enable-logging=stderr", "--v=0", "--window-size=1440,2200",
                           f"--screenshot={screenshot}", page.resolve().as_uri()], tmp)
    console = [line for line in shown.stderr.splitlines() if ":CONSOLE" in line]
    assert not console, f"console output from the {kind} report: {console}"
    assert screenshot.is_file() and screenshot.stat().st_size > 10_000, shown.stderr[-2000:]
    print(f"screenshot of the {kind} report: {screenshot}")

    selectors = KEY_ELEMENTS["numeric" if kind in ("dynamic", "symbolic", "scene") else kind] + (
        KEY_ELEMENTS[kind] if kind in ("dynamic", "symbolic", "scene") else [])
    if kind.startswith("multi"):
        selectors = KEY_ELEMENTS[kind]
    present = HIDDEN_UNTIL_OPENED.get(kind, [])
    probe = _PROBE.replace("SELECTORS", json.dumps(selectors)).replace("PRESENT", json.dumps(present))
    probed = tmp / f"{kind}-probed.html"
    probed.write_text(page.read_text(encoding="utf-8").replace("</body>", probe + "</body>"), encoding="utf-8")
    dumped = _run(browser, ["--window-size=1440,2200", "--dump-dom", probed.resolve().as_uri()], tmp)
    match = re.search(r'<pre id="probe-result">(.*?)</pre>', dumped.stdout, re.DOTALL)
    assert match, f"the probe did not run: {dumped.stderr[-2000:]}"
    result = json.loads(match.group(1).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))
    invisible = [sel for sel, ok in result["visible"].items() if not ok]
    assert not invisible, f"{kind} report: not visible: {invisible}"
    assert result["broken_images"] == 0
    for sel in present:
        assert result["present"][sel] > 0, f"{kind} report: no {sel}"
    assert result["width"] >= 1400 and not result["cut_tables"], f"{kind} report: tables cut: {result['cut_tables']}"
    if not kind.startswith("multi"):
        flt = result["filter"]
        assert flt and 0 < flt["shown"] <= min(25, flt["matching"]) and flt["shown"] < flt["total"]
        assert flt["all_match"] and flt["counter"] == str(flt["matching"])
        assert result["first_page"] == min(25, flt["total"])
        if flt["total"] > 25:
            assert result["pager"]["moved"] and result["pager"]["label"].startswith("page 2 of ")
    return result


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["numeric", "dynamic", "symbolic", "scene"])
def test_run_report_renders_in_chromium(kind: str, scripted_runs: dict[str, list[Path]], tmp_path: Path) -> None:
    page = write_html_report(scripted_runs[kind][1], tmp_path / f"{kind}.html")  # the medium model: every reason
    _check_page(page, kind, tmp_path)


@pytest.mark.slow
@pytest.mark.timeout(900)  # Chromium renders every view of three runs: 38 s on a slow machine
def test_multi_run_report_renders_in_chromium(scripted_runs: dict[str, list[Path]], tmp_path: Path) -> None:
    runs = [p for kind in ("numeric", "dynamic", "symbolic", "scene") for p in scripted_runs[kind]]
    page = write_multi_report(runs, tmp_path / "multi.html")
    _check_page(page, "multi", tmp_path)


@pytest.mark.slow
def test_a_1040_sample_report_is_short_before_the_sample_browser_and_cuts_no_table(tmp_path: Path) -> None:
    pytest.importorskip("cv2")
    from analysis.scripted_runs import make_run

    # bank-numeric in full: 65 problems x 4 variants x 4 samples = 1040 samples, as in issue 27
    run_dir = make_run(tmp_path, "bank-numeric", "medium", limit=10_000, samples=4)
    page = write_html_report(run_dir, tmp_path / "big.html")
    result = _check_page(page, "dynamic", tmp_path)
    assert result["samples_top"] is not None and result["samples_top"] < 10_000, result["samples_top"]
    text = page.read_text(encoding="utf-8")
    domains = set(re.findall(r"<option value='([a-z_]+)'>", text.split("<select name='domain'>")[1].split("</select>")[0]))
    assert domains == {"electromagnetism", "mechanics", "modern_physics", "optics", "thermodynamics"}


PHYBENCH_TAGS = ("MECHANICS", "ELECTRICITY", "THERMODYNAMICS", "OPTICS", "MODERN", "ADVANCED")


@pytest.mark.slow
def test_multi_run_report_of_phybench_runs_cuts_no_table_at_1440px(tmp_path: Path) -> None:
    """PHYBench's board has two columns per tag (six tags: 14 value columns, each a value, an
    interval and n) and a model column: at 1440 px it must fit, as the analysis page promises
    (issue 36: cut by 208 px with long model names, its cells never wrapping)."""
    from analysis.scripted_runs import make_run

    data = tmp_path / "phybench.json"  # three made-up problems per tag (so each cell has an interval), PHYBench's format
    data.write_text(json.dumps([{"id": 900 + 10 * i + j, "tag": tag, "solution": "", "answer": r"\frac{1}{2} g t^{2}",
                                 "content": f"A mass m falls for time t ({tag.lower()} {j}). How far does it fall?"}
                                for i, tag in enumerate(PHYBENCH_TAGS) for j in range(3)]), encoding="utf-8")
    labels = {"strong": "vllm/Qwen/Qwen2.5-Math-72B-Instruct-AWQ", "medium": "openai/gpt-4o-mini-2024-07-18",
              "weak": "local"}  # labels as long as real ones: the model column is as wide as it may be
    runs = [make_run(tmp_path, "phybench", model, limit=100, samples=2, data=str(data), grading_processes=0,
                     label=label) for model, label in labels.items()]
    page = write_multi_report(runs, tmp_path / "multi.html")
    assert page.read_text(encoding="utf-8").count("class='group'") >= 7  # overall + the six tags
    _check_page(page, "multi-phybench", tmp_path)
