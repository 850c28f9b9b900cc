"""Issue 33, finding 8: ``physeval serve`` validates what it takes and bounds what it echoes.

Through a real ``physeval serve`` on 127.0.0.1 (port 0, a body limit of 2 MiB): each malformed
body is answered 400 with one line naming the field and the first bad item (before, numbers were
scored as strings, a JSON array was answered with an AttributeError, a wrong-length ``questions``
was a 500); a well-formed request scores as before and its schema is published; a 1 MB reference
comes back cut to 2,000 characters; a body over the limit is a 413.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the serve extra (fastapi, uvicorn) is not installed")
pytest.importorskip("uvicorn", reason="the serve extra (fastapi, uvicorn) is not installed")
import httpx
from test_service import CASES, _Served

from _scene_programs import GOOD, fenced, judge_script
from physeval.rewards.limits import MAX_ECHO_CHARS
from physeval.testing import ScriptedServer

LIMIT = 2 * 1024 * 1024  # --max-body-mb 2
HANG_GUARD = 120  # seconds: reached only by a broken build; no verdict depends on it
SCORE_FIELDS = "id, completions, references, questions"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "rewards.md"


@pytest.fixture(scope="module")
def served() -> Iterator[_Served]:
    server = _Served("--track", "numeric", "--max-body-mb", "2")
    try:
        yield server
    finally:
        server.stop()


BAD = [  # (endpoint, body, the whole 400 line)
    ("/score", {"completions": [1, 2], "references": ["1", "2"]},
     "completions[0]: expected a string, got int (and 1 more error)"),
    ("/score", {"completions": ["a", None], "references": ["1", "2"]}, "completions[1]: expected a string, got null"),
    ("/score", {"completions": "a", "references": ["1"]}, "completions: expected a list, got string"),
    ("/score", {"completions": ["a", "b"], "references": ["1", "2"], "questions": ["q", 3]},
     "questions[1]: expected a string, got int"),
    ("/score", {"completions": ["a"], "references": [True]},
     "references[0]: expected a string, a number or null, got bool"),
    ("/score", {"id": {"run": 1}, "completions": ["a"], "references": ["1"]},
     "id: expected a string, an integer or null, got object"),
    ("/score", {"completions": ["a"], "references": ["1"], "question": ["q"]},
     f"question: unknown field (the fields are {SCORE_FIELDS})"),
    ("/score", {"completions": ["a"]}, "references: required"),
    ("/score", {"completions": ["a", "b"], "references": ["1"]}, "references: 1 for 2 completions (one each is needed)"),
    ("/score", {"completions": ["a"], "references": ["1"], "questions": ["q", "q"]},
     "questions: 2 for 1 completions (one each is needed)"),
    ("/score", [1, 2], f"the body must be a JSON object with {SCORE_FIELDS}, got array"),
    ("/score", "completions", f"the body must be a JSON object with {SCORE_FIELDS}, got string"),
    ("/get_reward", {"query": [1], "prompts": [""], "labels": ["1"]}, "query[0]: expected a string, got int"),
    ("/get_reward", {"query": ["a"], "prompts": [None], "labels": ["1"]}, "prompts[0]: expected a string, got null"),
    ("/get_reward", {"query": ["a"], "labels": [[1]]}, "labels[0]: expected a string, a number or null, got array"),
    ("/get_reward", {"query": ["a"], "labels": []}, "labels: 0 for 1 queries (one each is needed)"),
    ("/get_reward", [["a"]], "the body must be a JSON object with query, prompts, labels, got array"),
]


@pytest.mark.parametrize(("endpoint", "body", "message"), BAD, ids=[m for *_, m in BAD])
def test_a_bad_body_is_answered_400_naming_the_field_and_the_first_bad_item(
        served: _Served, endpoint: str, body: Any, message: str) -> None:
    response = httpx.post(f"{served.url}{endpoint}", json=body, timeout=HANG_GUARD)
    assert (response.status_code, response.json()) == (400, {"error": message})


def test_a_body_that_is_not_json_says_a_json_object_is_expected(served: _Served) -> None:
    broken = httpx.post(f"{served.url}/score", content=b'{"completions": [', timeout=HANG_GUARD,
                        headers={"content-type": "application/json"})
    assert broken.status_code == 400
    assert broken.json()["error"] == ("the body is not valid JSON (Expecting value at character 17); "
                                      f"the body must be a JSON object with {SCORE_FIELDS}")
    empty = httpx.post(f"{served.url}/score", content=b"", headers={"content-type": "application/json"},
                       timeout=HANG_GUARD)
    assert (empty.status_code, empty.json()["error"]) == (400, f"the body is empty; the body must be a JSON object "
                                                               f"with {SCORE_FIELDS}")
    plain = httpx.post(f"{served.url}/score", content=json.dumps({"completions": [], "references": []}),
                       headers={"content-type": "text/plain"}, timeout=HANG_GUARD)
    assert (plain.status_code, plain.json()["error"]) == (
        400, f"the body must be a JSON object with {SCORE_FIELDS}, sent as content-type application/json "
             "(the request said text/plain)")


def test_a_well_formed_request_scores_as_before_and_its_schema_is_published(served: _Served) -> None:
    payload = {"id": "req-1", "completions": [c for c, *_ in CASES], "references": [r for _, r, _, _ in CASES],
               "questions": [q for *_, q, _ in CASES]}
    data = httpx.post(f"{served.url}/score", json=payload, timeout=HANG_GUARD).json()
    assert data["id"] == "req-1" and data["rewards"] == [expected for *_, expected in CASES]
    assert data["results"][0]["explanation"]["unit_required"] == "km/s"
    numbers = httpx.post(f"{served.url}/score", json={"id": 7, "completions": [r"\boxed{30}"], "references": [30]},
                         timeout=HANG_GUARD).json()
    assert numbers["id"] == 7 and numbers["rewards"] == [1.0]  # a number is an answer too
    remote = httpx.post(f"{served.url}/get_reward", json={"query": [r"Q \boxed{30}"], "prompts": ["Q "],
                                                         "labels": ["30"]}, timeout=HANG_GUARD).json()
    assert remote["rewards"] == [1.0]
    schema = httpx.get(f"{served.url}/openapi.json", timeout=HANG_GUARD).json()
    body = schema["paths"]["/score"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    model = schema["components"]["schemas"][body["$ref"].rsplit("/", 1)[1]]
    assert model["required"] == ["completions", "references"]
    assert model["properties"]["completions"]["items"] == {"type": "string"}
    assert model["additionalProperties"] is False
    assert "/get_reward" in schema["paths"] and "requestBody" in schema["paths"]["/get_reward"]["post"]


def test_a_1mb_reference_comes_back_cut_to_the_documented_size(served: _Served) -> None:
    reference, completion = "a" * 1_000_000, "\\boxed{" + "y" * 1_000_000 + "}"
    response = httpx.post(f"{served.url}/score", json={"completions": [r"\boxed{3}", completion],
                                                       "references": [reference, "3"]}, timeout=HANG_GUARD)
    assert response.status_code == 200 and len(response.content) < 4 * MAX_ECHO_CHARS + 2000
    first, second = response.json()["results"]
    assert first["outcome"] == "error" and reference[:100] in first["reason"]
    # bounded: by the grader itself (it names the reference in 200 characters) or by the service's cut
    assert len(first["reason"]) <= MAX_ECHO_CHARS + 40
    assert "1000000 characters" in first["reason"] or first["reason"].endswith(" more characters cut]")
    assert second["outcome"] == "too_large"  # a million characters: beyond the parse budget, not read
    cut = len(completion) - len("\\boxed{}") - MAX_ECHO_CHARS  # the extracted answer is the million y's
    assert second["pred"] == "y" * MAX_ECHO_CHARS + f"…[{cut} more characters cut]"


def _raw(served: _Served, head: bytes, chunks: list[bytes]) -> tuple[int, dict[str, Any]]:
    """Send a request byte by byte on one connection, then read the answer until the server closes it."""
    host, port = served.url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=HANG_GUARD) as sock:
        sock.sendall(head)
        for chunk in chunks:
            sock.sendall(chunk)
        answer = b""
        while part := sock.recv(65536):
            answer += part
    status = int(answer.split(b" ", 2)[1])
    return status, json.loads(answer.split(b"\r\n\r\n", 1)[1])


def test_a_body_over_the_limit_is_answered_413_before_it_is_read(served: _Served) -> None:
    declared = LIMIT + 1
    status, body = _raw(served, b"POST /score HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\n"
                                b"content-length: %d\r\n\r\n" % declared, [])  # not one byte of it sent
    assert (status, body["error"]) == (413, f"the request body is {declared} bytes; at most {LIMIT} bytes (2 MiB) "
                                            "are accepted (physeval serve --max-body-mb)")
    piece = b"x" * 65536  # chunked, no length declared: counted as it arrives; the 33rd piece crosses the limit,
    # the rest is read and dropped (so the connection closes cleanly and the answer arrives)
    status, body = _raw(served, b"POST /score HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\n"
                                b"transfer-encoding: chunked\r\n\r\n",
                        [b"%x\r\n%s\r\n" % (len(piece), piece)] * (LIMIT // len(piece) + 4) + [b"0\r\n\r\n"])
    assert (status, body["error"]) == (413, f"the request body is longer; at most {LIMIT} bytes (2 MiB) are accepted "
                                            "(physeval serve --max-body-mb)")
    assert httpx.get(f"{served.url}/metrics", timeout=HANG_GUARD).json()["responses"].get("413") == 2


def test_the_scene_track_takes_scene_ids_or_objects_and_nothing_else() -> None:
    with ScriptedServer(judge_script(True)) as judge:
        served = _Served("--track", "scene", "--judge", "openai/judge", "--judge-base-url", judge.base_url,
                         "--judge-mode", "text")
        try:
            def post(endpoint: str, body: Any) -> tuple[int, Any]:
                response = httpx.post(f"{served.url}{endpoint}", json=body, timeout=HANG_GUARD)
                return response.status_code, response.json()

            assert post("/score", {"completions": ["a"], "scenes": [1]}) == (
                400, {"error": "scenes[0]: expected a scene id (string) or a scene object, got int"})
            assert post("/score", {"completions": ["a"]}) == (
                400, {"error": "scenes: required (one scene per completion)"})
            assert post("/get_reward", {"query": ["a"], "labels": [None]}) == (
                400, {"error": "labels[0]: expected a scene id (string) or a scene object, got null"})
            status, data = post("/score", {"id": "s", "completions": [fenced(GOOD)], "scenes": ["em-lorentz-circle"]})
            assert (status, data["rewards"]) == (200, [1.0])
        finally:
            served.stop()


def test_the_rewards_page_says_what_the_service_does() -> None:
    page = DOCS.read_text(encoding="utf-8")
    assert "reward 0 per item" not in page  # a timed-out item is null (not measured), never 0
    assert "answered 200 with `null` rewards" in page
    assert f"{MAX_ECHO_CHARS:,} characters" in page and "--max-body-mb" in page and "64 MiB" in page
    assert "/openapi.json" in page
