"""Loading the ABench-Physics CSV files into Problems."""

from __future__ import annotations

from pathlib import Path

import pytest

from physeval.tasks.abench_data import load_abench

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "abench"

A_HEADER = '"mid","standard_question","standard_answer"\n'
B_HEADER = '"mid","subid","standard_question","standard_answer"\n'


def _write(path: Path, text: str) -> Path:
    path.write_text("\ufeff" + text, encoding="utf-8")
    return path


def test_loads_set_a_from_a_folder(tmp_path: Path) -> None:
    _write(
        tmp_path / "Phy_A_fixed_400.csv",
        A_HEADER + '"7","求速度。 (结果以$ \\mathrm{\\;m}/\\mathrm{s} $为单位，保留3位有效数字)"," 2.97"\n'
        '"8","Find x. (Results should be expressed in scientific notation, and rounded to 2 significant figures)","1.4 \\times 10^{-2}"\n',
    )
    problems = load_abench(tmp_path, "a")
    assert [p.key for p in problems] == [("7", "0"), ("8", "0")]
    assert problems[0].answer == "2.97"
    assert problems[0].meta == {"language": "zh", "unit": "\\mathrm{\\;m}/\\mathrm{s}", "sig_figs": 3, "scientific": False}
    assert problems[1].meta["language"] == "en" and problems[1].meta["scientific"] is True


def test_loads_set_b_from_a_file(tmp_path: Path) -> None:
    file = _write(
        tmp_path / "Phy_B_dynamic_100.csv",
        B_HEADER + "".join(f'"3","{s}","Q{s} (结果保留2位有效数字)","{s}0"\n' for s in range(4)),
    )
    problems = load_abench(file, "b")
    assert [p.variant for p in problems] == ["0", "1", "2", "3"]
    assert {p.id for p in problems} == {"3"}


def test_missing_file_names_the_expected_files(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="Phy_B_dynamic_100.csv"):
        load_abench(tmp_path, "b")
    with pytest.raises(FileNotFoundError, match="Phy_A_fixed_400.csv"):
        load_abench(tmp_path / "nowhere.csv", "a")


def test_a_row_missing_a_field_is_reported_with_its_line(tmp_path: Path) -> None:
    _write(tmp_path / "Phy_A_fixed_400.csv", A_HEADER + '"1","q","1"\n"2","q",""\n')
    with pytest.raises(ValueError, match="line 3.*mid='2'.*standard_answer"):
        load_abench(tmp_path, "a")


def test_a_missing_column_is_reported(tmp_path: Path) -> None:
    _write(tmp_path / "Phy_B_dynamic_100.csv", A_HEADER + '"1","q","1"\n')
    with pytest.raises(ValueError, match="subid"):
        load_abench(tmp_path, "b")


def test_unknown_set_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        load_abench(tmp_path, "c")  # type: ignore[arg-type]


def test_real_files_when_present() -> None:
    if not DATA.is_dir():
        pytest.skip("../shared/data/abench is absent")
    a, b = load_abench(DATA, "a"), load_abench(DATA, "b")
    assert len(a) == 400 and len(b) == 400
    assert {p.variant for p in b} == {"0", "1", "2", "3"}
    assert len({p.id for p in b}) == 100
    assert {p.meta["language"] for p in a + b} == {"zh", "en"}
