"""One JSON-lines reader (physeval.json_lines) behind every JSONL file physeval reads.

Responses files, lm-eval samples files, ``jsonl`` task data, SimuScene JSONL and review sheets
each split and decoded lines their own way: a byte-order mark made line 1 of a responses file
"not JSON", a raw U+2028 inside a JSON string cut a line in two (``str.splitlines``), and a task
file that was not UTF-8 ended in a traceback. Each reader is held here to the same behaviour: the
blank lines skipped and counted, a bad line named by its number, UTF-8 with or without a BOM,
anything else one line of error. A static check finds a hand-rolled reader coming back.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from physeval.errors import DataError, UserError
from physeval.imports import lm_eval_samples
from physeval.json_lines import JsonLine, NotText, parse_json_lines, read_json_lines
from physeval.responses import read_responses
from physeval.scene_builder.human import _read_sheet
from physeval.tasks.registry import get_task

SRC = Path(__file__).resolve().parents[1] / "src" / "physeval"
BOM = "\ufeff"
SEPARATOR = "a\u2028b\u0085c"  # JSON allows these raw inside a string; str.splitlines cuts there


def _responses(*ids: str) -> list[str]:
    return [json.dumps({"id": i, "response": SEPARATOR}, ensure_ascii=False) for i in ids]


def _lm_eval(*ids: str) -> list[str]:
    return [json.dumps({"doc_id": n, "doc": {"id": i, "variant": "0", "task": "bank-numeric"},
                        "resps": [[SEPARATOR]]}, ensure_ascii=False) for n, i in enumerate(ids)]


def _problems(*ids: str) -> list[str]:
    return [json.dumps({"id": i, "question": f"q {SEPARATOR}", "answer": "1"}, ensure_ascii=False) for i in ids]


def test_the_reader_skips_blank_lines_numbers_bad_ones_and_keeps_separators_inside_strings() -> None:
    text = BOM[:0] + '{"a": 1}\r\n\r\n  \nnot json\n' + json.dumps({"s": SEPARATOR}, ensure_ascii=False) + "\n"
    lines = list(parse_json_lines(text))
    assert [(x.number, x.value, x.error) for x in lines] == [
        (1, {"a": 1}, None), (4, None, "not JSON (Expecting value)"), (5, {"s": SEPARATOR}, None)]
    assert lines[1].problem == "line 4: not JSON (Expecting value)" and JsonLine(1, {}).problem == ""


def test_the_file_reader_takes_utf8_with_or_without_a_bom_and_names_other_bytes(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    for prefix in ("", BOM):
        path.write_text(prefix + '{"a": "é"}\n', encoding="utf-8")
        assert [x.value for x in read_json_lines(path)] == [{"a": "é"}]
    path.write_bytes(b'{"a": 1}\n{"b": "\xe9"}\n')
    with pytest.raises(NotText, match=r"f.jsonl: not UTF-8 text \(byte 16\)"):
        read_json_lines(path)
    assert issubclass(NotText, DataError)


def test_responses_files(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(BOM + "\n".join([*_responses("a"), "", "{oops", *_responses("b")]) + "\n", encoding="utf-8")
    records, bad = read_responses(path)
    assert [(r["id"], r["response"]) for r in records] == [("a", SEPARATOR), ("b", SEPARATOR)]
    assert bad == ["line 3: not JSON (Expecting property name enclosed in double quotes)"]
    path.write_bytes(b'{"id": "a", "response": "\xe9"}\n')
    with pytest.raises(UserError, match="not UTF-8 text"):
        read_responses(path)


def test_lm_eval_samples_files(tmp_path: Path) -> None:
    path = tmp_path / "samples_bank_2026-01-01T00-00-00.jsonl"
    path.write_text("\n".join([*_lm_eval("a"), "", "{oops", *_lm_eval("b")]) + "\n", encoding="utf-8")
    read = lm_eval_samples.read(path)
    assert [(r["id"], r["response"]) for r in read.records] == [("a", SEPARATOR), ("b", SEPARATOR)]
    assert list(read.errors) == ["line 3: not JSON (Expecting property name enclosed in double quotes)"]
    path.write_bytes(_lm_eval("a")[0].encode() + b'\n{"doc_id": 1, "x": "\xe9"}\n')
    with pytest.raises(UserError, match="not UTF-8 text"):
        lm_eval_samples.read(path)


def test_jsonl_task_data(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(BOM + "\n".join([*_problems("a"), "", *_problems("b")]) + "\n", encoding="utf-8")
    assert [(p.id, p.question) for p in get_task("jsonl", data=str(path)).load()] == [
        ("a", f"q {SEPARATOR}"), ("b", f"q {SEPARATOR}")]
    path.write_text("\n".join([*_problems("a"), "", "{oops"]) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match="p.jsonl line 3: not JSON"):
        get_task("jsonl", data=str(path)).load()
    path.write_bytes(_problems("a")[0].encode() + b'\n{"id": "\xe9"}\n')
    with pytest.raises(DataError, match="not UTF-8 text"):
        get_task("jsonl", data=str(path)).load()


def test_review_sheets(tmp_path: Path) -> None:
    path = tmp_path / "review.jsonl"
    path.write_text(BOM + "\n".join(['{"id": "a", "note": "' + SEPARATOR + '"}', "", "{oops"]) + "\n",
                    encoding="utf-8")
    with pytest.raises(DataError, match="review.jsonl line 3: not JSON"):
        _read_sheet(path)
    path.write_text(BOM + '{"id": "a", "note": "' + SEPARATOR + '"}\n', encoding="utf-8")
    assert _read_sheet(path) == [{"id": "a", "note": SEPARATOR}]


def _calls_loads(nodes: list[ast.AST]) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "loads" for part in nodes for n in ast.walk(part))


def _splits(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr in ("splitlines", "split") for n in ast.walk(node))


def _hand_rolled(tree: ast.AST) -> list[int]:
    """Lines of loops (and comprehensions) over ``....splitlines()`` or ``.split(...)`` that call ``json.loads``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.For) and _splits(node.iter) and _calls_loads(node.body):
            found.append(node.lineno)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            produced: list[ast.AST] = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            if any(_splits(g.iter) for g in node.generators) and _calls_loads(produced):
                found.append(node.lineno)
    return found


def test_no_module_reads_json_lines_by_hand() -> None:
    allowed = {"json_lines.py": "the reader itself"}
    found = {str(p.relative_to(SRC)): lines for p in sorted(SRC.rglob("*.py")) if p.name not in allowed
             if (lines := _hand_rolled(ast.parse(p.read_text(encoding="utf-8"))))}
    assert found == {}, f"JSON lines read by hand (use physeval.json_lines): {found}"
    planted = ("import json\nfor line in text.splitlines():\n    rows.append(json.loads(line))\n"
               "rows = [json.loads(x) for x in text.split('\\n') if x]\n")
    assert _hand_rolled(ast.parse(planted)) == [2, 4]
