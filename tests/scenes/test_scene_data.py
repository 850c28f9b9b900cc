"""Loading SimuScene-format records (records here are written for the tests)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from physeval.scenes.data import (
    VerificationQuestion,
    clean_scenario,
    domain_of_concept,
    load_simuscene,
    parse_scene_record,
    questions_of,
    scene_records_to_problems,
)


def _record(**over: object) -> dict:
    record = {
        "question": "A ball rolls off a 1 m table at 2 m/s. Animate its fall.",
        "Level": 1,
        "concept": "projectile motion",
        "domain": "Mechanics",
        "vlm_questions": {
            "enableAnnotator": "Yes",
            "summarize": "A table, a ball leaving its edge, a parabolic fall.",
            "vlm_questions": [
                {"index": "1", "question": "Does the ball leave the table edge?", "weight": 1.0},
                {"index": "2", "question": "Does the ball follow a curved path down?", "weight": 0.5},
                {"index": "3", "question": "Does the ball land to the right of the table?"},
                {"index": "4", "question": "Does the ball speed up as it falls?", "weight": 1},
            ],
        },
    }
    record.update(over)
    return record


def test_a_json_list_loads_into_problems(tmp_path: Path) -> None:
    path = tmp_path / "scenes.json"
    path.write_text(json.dumps([_record(id="a"), _record(id=7, Level=3)]))
    load = load_simuscene(path)
    assert (len(load.problems), load.skipped, load.dropped) == (2, 0, 0)
    first, second = load.problems
    assert first.id == "a" and second.id == "7"
    assert first.answer == "" and first.question.startswith("A ball rolls off")
    assert first.meta["level"] == 1 and second.meta["level"] == 3
    assert first.meta["domain"] == "mechanics" and first.meta["concept"] == "projectile motion"
    assert first.meta["summarize"].startswith("A table")
    assert first.meta["questions"][1] == {"index": "2", "question": "Does the ball follow a curved path down?",
                                          "weight": 0.5}
    assert first.meta["questions"][2]["weight"] == 1.0
    json.dumps([p.meta for p in load.problems])


def test_jsonl_uses_positions_as_ids_and_drops_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "scenes.jsonl"
    lines = [json.dumps(_record()), "{not json", "", json.dumps(_record())]
    path.write_text("\n".join(lines) + "\n")
    load = load_simuscene(path)
    assert [p.id for p in load.problems] == ["0", "2"]
    assert load.dropped == 1
    assert any("record 1 (line 2)" in m and "not JSON" in m for m in load.messages)


def test_enable_annotator_no_is_skipped_and_counted(tmp_path: Path) -> None:
    off = _record(id="off")
    off["vlm_questions"] = {**off["vlm_questions"], "enableAnnotator": "No"}
    path = tmp_path / "s.json"
    path.write_text(json.dumps([_record(id="on"), off]))
    load = load_simuscene(path)
    assert [p.id for p in load.problems] == ["on"]
    assert load.skipped == 1 and load.dropped == 0
    assert "1 skipped" in load.summary() and "0 dropped" in load.summary()


@pytest.mark.parametrize(
    "broken, reason",
    [
        ("just a string", "expected a JSON object"),
        (_record(question="  "), "'question'"),
        (_record(vlm_questions=None), "missing 'vlm_questions'"),
        (_record(vlm_questions={"enableAnnotator": "Maybe", "vlm_questions": []}), "enableAnnotator"),
        (_record(vlm_questions={"enableAnnotator": "Yes", "vlm_questions": []}), "non-empty list"),
        (_record(vlm_questions={"vlm_questions": [{"index": "1"}]}), "no 'question' text"),
        (_record(vlm_questions={"vlm_questions": [{"question": "q", "weight": "heavy"}]}), "non-numeric weight"),
        (_record(vlm_questions={"vlm_questions": [{"question": "q", "weight": -1}]}), "negative"),
        (_record(vlm_questions={"vlm_questions": [{"index": 1, "question": "a"}, {"index": "1", "question": "b"}]}),
         "appears twice"),
        (_record(Level="hard"), "'Level' must be an integer"),
        (_record(domain=3), "'domain' must be a string"),
        (_record(id=[1]), "'id' must be"),
    ],
)
def test_each_malformed_record_is_dropped_with_its_reason(broken: object, reason: str) -> None:
    load = scene_records_to_problems([_record(id="good"), broken])
    assert [p.id for p in load.problems] == ["good"]
    assert load.dropped == 1
    (message,) = load.messages
    assert message.startswith("record 1: dropped:") and reason in message


def test_duplicate_ids_keep_the_first_record() -> None:
    load = scene_records_to_problems([_record(id="x"), _record(id="x")])
    assert len(load.problems) == 1 and load.dropped == 1 and "duplicate id" in load.messages[0]


def test_lenient_fields() -> None:
    record = _record(level="Level 2", concept=None, domain=None)
    del record["Level"]
    record["vlm_questions"] = {"vlm_questions": [{"question": "Does it move?"}, {"question": "Does it stop?"}]}
    problem = parse_scene_record(record, 5)
    assert problem is not None
    assert problem.id == "5" and problem.meta["level"] == 2
    assert problem.meta["domain"] is None and problem.meta["concept"] is None
    assert problem.meta["summarize"] == ""
    assert questions_of(problem) == [VerificationQuestion("1", "Does it move?"),
                                     VerificationQuestion("2", "Does it stop?")]


def test_a_single_pretty_printed_object_and_an_empty_file(tmp_path: Path) -> None:
    one = tmp_path / "one.json"
    one.write_text(json.dumps(_record(id="solo"), indent=2))
    assert [p.id for p in load_simuscene(one).problems] == ["solo"]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    assert load_simuscene(empty).problems == []


def test_unreadable_files_raise_clearly(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_simuscene(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("[{\"question\": ")
    with pytest.raises(ValueError, match="not a valid JSON list"):
        load_simuscene(broken)
    scalar = tmp_path / "scalar.json"
    scalar.write_text("42")
    with pytest.raises(ValueError, match="expected a JSON list"):
        load_simuscene(scalar)


# ----------------------------------------------------------------- the layouts of released records


def test_the_flat_question_layout_agentfly_reads_loads_like_the_nested_one() -> None:
    nested = _record(id="n")
    flat = _record(id="f", summarize="A table, a ball leaving its edge, a parabolic fall.",
                   vlm_questions=nested["vlm_questions"]["vlm_questions"])
    load = scene_records_to_problems([nested, flat])
    assert load.dropped == 0
    n, f = load.problems
    assert (n.meta["question_layout"], f.meta["question_layout"]) == ("nested", "flat")
    assert n.meta["questions"] == f.meta["questions"] and f.meta["summarize"] == n.meta["summarize"]
    bare = parse_scene_record({"question": "q", "vlm_questions": [{"question": "Does it move?"}]}, 0)
    assert bare is not None and bare.meta["summarize"] == "" and questions_of(bare)[0].index == "1"


def test_an_empty_flat_list_is_dropped_naming_the_field() -> None:
    load = scene_records_to_problems([_record(vlm_questions=[])])
    assert load.dropped == 1 and "'vlm_questions' must be a non-empty list" in load.messages[0]


def test_the_authors_vlm_result_key_is_read_as_the_nested_block() -> None:
    record = _record(id="v")
    record["vlm_result"] = record.pop("vlm_questions")
    problem = parse_scene_record(record, 0)
    assert problem is not None and len(problem.meta["questions"]) == 4


@pytest.mark.parametrize(("raw", "clean"), [
    ('\n\n  "A ball rolls off a table."  \n', "A ball rolls off a table."),
    ('"\\"A ball\\" rolls off a table."', '"A ball" rolls off a table.'),   # a JSON-encoded string
    ("\u201cA ball rolls.\u201d", "A ball rolls."),
    ("'A ball rolls.'", "A ball rolls."),
    ('"Stop," she said. "Now."', '"Stop," she said. "Now."'),               # a quotation, not a wrapper
    ("A  ball\trolls.   \n\n\n\nIt stops. ", "A ball rolls.\n\nIt stops."),
    ("A ball rolls.", "A ball rolls."),
])
def test_scenario_text_is_cleaned_before_prompting(raw: str, clean: str) -> None:
    assert clean_scenario(raw) == clean
    problem = parse_scene_record(_record(question=raw), 0)
    assert problem is not None and problem.question == clean


def test_a_scenario_that_is_only_quotes_is_dropped() -> None:
    load = scene_records_to_problems([_record(question='  ""  ')])
    assert load.dropped == 1 and "'question'" in load.messages[0]


# ----------------------------------------------------------------- domains from concepts


@pytest.mark.parametrize(("concept", "domain"), [
    ("projectile motion", "mechanics"),                       # a taxonomy concept, exactly
    ("Projectile Motion with air resistance", "mechanics"),   # most of its words
    ("Snell's law refraction", "optics"),
    ("kinetic theory of gases", "thermodynamics"),             # plurals folded
    ("buoyancy force", "fluid mechanics"),
    ("Electromagnetism", "electromagnetism"),                 # a domain name itself
    ("Doppler effect", None),                                 # not in the taxonomy: no guess
    ("law", None),                                            # too little to tell
])
def test_concepts_map_to_the_papers_five_domains(concept: str, domain: str | None) -> None:
    assert domain_of_concept(concept) == domain


def test_a_record_without_a_domain_gets_it_from_its_concept() -> None:
    mapped = parse_scene_record(_record(domain=None, concept="elastic collision"), 0)
    kept = parse_scene_record(_record(domain="Optics", concept="elastic collision"), 1)
    unknown = parse_scene_record(_record(domain=None, concept="Doppler effect"), 2)
    assert mapped is not None and kept is not None and unknown is not None
    assert (mapped.meta["domain"], mapped.meta["domain_source"]) == ("mechanics", "concept")
    assert (kept.meta["domain"], kept.meta["domain_source"]) == ("optics", "record")
    assert (unknown.meta["domain"], unknown.meta["domain_source"]) == (None, None)


def test_the_mapping_reads_the_build_taxonomy_not_a_copy() -> None:
    from physeval.scene_builder.taxonomy import load_taxonomy

    taxonomy = load_taxonomy()
    assert all(domain_of_concept(c.name) == c.domain.lower() for c in taxonomy.concepts)
