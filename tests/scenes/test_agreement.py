"""Judge-vs-human agreement (Table 6 layout) from verdicts and a LABELS.csv."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from physeval.scenes.agreement import (
    ENSEMBLE,
    agreement_rich_table,
    agreement_table,
    judge_labels_from_verdicts,
    parse_human_labels,
    read_human_labels,
)
from physeval.scenes.judge import JudgeRun, JudgeVerdict

LABELS_CSV = """id,sample,index,label,note
p1,0,1,true,
p1,0,2,false,ball clips the floor
p1,0,3,yes,
p2,,Q1,1,
p2,,2,0,
p2,1,1,no,
"""


def _verdict(runs: list[JudgeRun], final: dict[str, bool]) -> JudgeVerdict:
    return JudgeVerdict(correct=all(final.values()), outcome="correct", judges=tuple(runs), per_question=final)


def test_labels_csv_is_read_with_normalised_keys(tmp_path: Path) -> None:
    path = tmp_path / "LABELS.csv"
    path.write_text(LABELS_CSV)
    labels = read_human_labels(path)
    assert labels == {
        ("p1", "0", "1"): True, ("p1", "0", "2"): False, ("p1", "0", "3"): True,
        ("p2", "0", "1"): True, ("p2", "0", "2"): False, ("p2", "1", "1"): False,
    }


@pytest.mark.parametrize(
    "text, message",
    [
        ("id,index\np1,1\n", "missing column(s) label"),
        ("id,index,label\np1,1,perhaps\n", ":2: label must be"),
        ("id,index,label\np1,1,true\np1,1,false\n", ":3:"),
        ("id,index,label\n,1,true\n", "empty id"),
    ],
)
def test_bad_label_files_name_the_line(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_human_labels(text)


def test_table_counts_each_cell_and_agreement() -> None:
    human = parse_human_labels(LABELS_CSV)
    judge = {
        ("p1", "0", "1"): True,   # TT
        ("p1", "0", "2"): True,   # TF
        ("p1", "0", "3"): False,  # FT
        ("p2", "0", "1"): True,   # TT
        ("p2", "0", "2"): False,  # FF
        # ("p2", "1", "1") not judged
        ("p9", "0", "1"): True,   # no human label: ignored
    }
    (row,) = agreement_table({"vlm": judge}, human)
    assert (row.tt, row.ff, row.tf, row.ft, row.compared, row.human_only) == (2, 1, 1, 1, 5, 1)
    assert row.agreement == pytest.approx(3 / 5)
    # kappa: p_o = 0.6, judge true 3/5, human true 3/5 -> p_e = 0.52 -> (0.6 - 0.52) / 0.48
    assert row.kappa == pytest.approx(1 / 6)
    json.dumps(row.to_dict())


def test_perfect_and_empty_rows() -> None:
    human = {("a", "0", "1"): True, ("a", "0", "2"): True}
    perfect, empty = agreement_table({"same": dict(human), "none": {}}, human)
    assert perfect.agreement == 1.0 and perfect.kappa is None  # chance agreement is 1
    assert empty.compared == 0 and empty.agreement is None and empty.human_only == 2


def test_labels_from_verdicts_per_judge_plus_ensemble_skipping_failed_judges() -> None:
    ok_a = JudgeRun("a", "ok", results={"1": True, "2": False})
    ok_b = JudgeRun("b", "ok", results={"1": True, "2": True})
    down = JudgeRun("b", "error", results={"1": False, "2": False}, error="HTTP 500")
    verdicts = [
        ("p1", 0, _verdict([ok_a, ok_b], {"1": True, "2": False})),
        ("p2", 0, _verdict([ok_a, down], {"1": False, "2": False}).to_dict()),
    ]
    labels = judge_labels_from_verdicts(verdicts)
    assert set(labels) == {"a", "b", ENSEMBLE}
    assert labels["b"] == {("p1", "0", "1"): True, ("p1", "0", "2"): True}
    assert labels["a"][("p2", "0", "2")] is False
    assert labels[ENSEMBLE] == {("p1", "0", "1"): True, ("p1", "0", "2"): False,
                                ("p2", "0", "1"): False, ("p2", "0", "2"): False}


def test_single_judge_runs_have_no_ensemble_row() -> None:
    verdicts = [("p1", 0, _verdict([JudgeRun("a", "ok", results={"1": True})], {"1": True}))]
    assert set(judge_labels_from_verdicts(verdicts)) == {"a"}


def test_rich_table_renders_the_table6_columns() -> None:
    human = {("a", "0", "1"): True, ("a", "0", "2"): False}
    rows = agreement_table({"qwen-vl": {("a", "0", "1"): True, ("a", "0", "2"): False}}, human)
    console = Console(record=True, width=160)
    console.print(agreement_rich_table(rows))
    text = console.export_text()
    for header in ("judge T / human T", "judge F / human F", "judge T / human F", "judge F / human T", "agreement %"):
        assert header in text
    assert "qwen-vl" in text and "100.0" in text
