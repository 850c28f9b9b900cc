"""A run's metrics and samples logged to W&B (offline) and TensorBoard, read back from their files.

Nothing here reaches the network: WANDB_MODE=offline and WANDB_DIR under tmp_path (conftest),
and the socket guard refuses every non-loopback address in this process.
"""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path
from typing import Any

import pytest

from physeval import score_responses
from physeval.integrations.logging import (
    SAMPLE_COLUMNS,
    log_run,
    log_to_tensorboard,
    log_to_wandb,
    sample_table,
    scalars,
)
from physeval.summary import read_summary
from physeval.tasks.registry import get_task
from physeval.testing import Reply, Request, ScriptedServer


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """bank-numeric's first 12 variants, every third answered wrong, graded into a run directory."""
    problems = get_task("bank-numeric").load()[:12]
    records = []
    for i, p in enumerate(problems):
        unit = p.meta.get("unit_latex")
        answer = "1.00 \\times 10^{9}" if i % 3 == 0 else f"{p.answer}\\,{unit}" if unit else p.answer
        records.append({"id": p.id, "variant": p.variant, "response": f"\\boxed{{{answer}}}"})
    out = tmp_path / "run"
    score_responses("bank-numeric", records, run_dir=out)
    return out


def test_scalars_are_every_metric_grouped_ones_by_key_value_name_and_counts(run_dir: Path) -> None:
    summary = read_summary(run_dir)
    values = scalars(summary)
    assert values["accuracy"] == summary.metrics["accuracy"].value
    assert values["dynamic_accuracy"] == summary.metrics["dynamic_accuracy"].value
    assert values["variant/0/accuracy"] == summary.breakdowns["variant"]["0"]["accuracy"].value
    assert values["counts/samples"] == 12
    assert 0 < values["accuracy"] < 1


def test_sample_table_has_one_row_per_sample_with_verdict_and_reason(run_dir: Path) -> None:
    table = sample_table(run_dir)
    assert len(table) == 12
    row = dict(zip(SAMPLE_COLUMNS, table[0]))
    assert row["correct"] is False and row["outcome"] == "wrong" and row["reason"]
    assert sum(bool(dict(zip(SAMPLE_COLUMNS, r))["correct"]) for r in table) == 8


# -- TensorBoard ----------------------------------------------------------------------------------------
def _events(log_dir: Path) -> list[Any]:
    """Every Event record of the event files under ``log_dir`` (TFRecord framing read by hand)."""
    from tensorboardX.proto import event_pb2

    events = []
    for path in sorted(log_dir.glob("events.out.tfevents.*")):
        data = path.read_bytes()
        at = 0
        while at < len(data):
            (length,) = struct.unpack_from("<Q", data, at)
            payload = data[at + 12: at + 12 + length]  # 8 bytes length, 4 bytes its CRC, then the record
            at += 12 + length + 4  # and the record's CRC
            event = event_pb2.Event()
            event.ParseFromString(payload)
            events.append(event)
    return events


def test_tensorboard_event_file_holds_every_scalar(run_dir: Path, tmp_path: Path) -> None:
    pytest.importorskip("tensorboardX")
    log_dir = log_to_tensorboard(run_dir, tmp_path / "tb", step=3)
    written = {v.tag: (e.step, v.simple_value) for e in _events(log_dir) for v in e.summary.value
               if v.HasField("simple_value")}
    expected = scalars(read_summary(run_dir))
    assert set(written) == set(expected)
    for tag, value in expected.items():
        assert written[tag] == (3, pytest.approx(value, rel=1e-6))  # event files store float32


def test_the_tensorboard_command_of_the_extra_reads_what_physeval_wrote(run_dir: Path, tmp_path: Path) -> None:
    """The integrations page's ``tensorboard --logdir tb/``, as the ``tensorboard`` extra installs it
    (its ``--inspect`` mode reads the event files and exits, where ``--logdir`` alone serves them)."""
    import shutil
    import subprocess
    import sys

    pytest.importorskip("tensorboardX")
    command = shutil.which("tensorboard", path=str(Path(sys.executable).parent))
    if command is None:
        pytest.skip("the `tensorboard` extra is not installed")
    log_dir = log_to_tensorboard(run_dir, tmp_path / "tb", step=3)
    shown = subprocess.run([command, "--inspect", "--logdir", str(tmp_path / "tb")], capture_output=True,
                           text=True, timeout=300, check=True).stdout
    assert str(log_dir) in shown
    scalars_section = shown.split("scalars", 1)[1]
    assert re.search(r"first_step\s+3\b", scalars_section) and re.search(r"num_steps\s+1\b", scalars_section), shown


def test_tensorboard_gets_a_subdirectory_per_run_a_step_per_graded_batch_and_wandbs_names(tmp_path: Path) -> None:
    pytest.importorskip("tensorboardX")
    problems = get_task("bank-numeric").load()[:12]
    records = [{"id": p.id, "variant": p.variant, "sample": s,
                "response": "\\boxed{1}" if (i + s) % 3 == 0 else f"\\boxed{{{p.answer}\\,{p.meta['unit_latex']}}}"}
               for i, p in enumerate(problems) for s in (0, 1)]
    score_responses("bank-numeric", records, run_dir=tmp_path / "run-a")
    score_responses("bank-numeric", records[:8], run_dir=tmp_path / "run-b")
    a = log_to_tensorboard(tmp_path / "run-a", tmp_path / "tb", batches=4)
    b = log_to_tensorboard(tmp_path / "run-b", tmp_path / "tb", batches=4)
    assert (a, b) == (tmp_path / "tb" / "run-a", tmp_path / "tb" / "run-b")
    steps: dict[str, list[int]] = {}
    last: dict[str, float] = {}
    for event in _events(a):
        for v in event.summary.value:
            if v.HasField("simple_value"):
                steps.setdefault(v.tag, []).append(event.step)
                last[v.tag] = v.simple_value
    assert steps["accuracy"] == [6, 12, 18, 24]  # a quarter of the 24 graded samples a step
    expected = scalars(read_summary(tmp_path / "run-a"))
    assert "pass@2" in expected and set(last) == set(expected)  # W&B's names, `@` kept
    assert last["pass@2"] == pytest.approx(expected["pass@2"], rel=1e-6)


# -- Weights & Biases, offline -----------------------------------------------------------------------------
def _wandb_records(local: Path) -> list[Any]:
    """The protobuf records of an offline run's ``.wandb`` file (LevelDB log framing: 32 KiB
    blocks of chunks, each with a 7-byte header of CRC, length and type full/first/middle/last)."""
    import wandb
    from wandb.proto import wandb_internal_pb2

    wandb.teardown()  # the run's service process flushes its file when it stops (as at interpreter exit)
    [path] = local.glob("*.wandb")
    data, block, at, pending, chunks = path.read_bytes(), 32768, 7, b"", []
    while at + 7 <= len(data):
        if block - at % block < 7:  # a block's tail too short for a header is padding
            at += block - at % block
            continue
        _crc, length, kind = struct.unpack_from("<IHB", data, at)
        if kind == 0 and length == 0:
            at += block - at % block
            continue
        chunk, at = data[at + 7: at + 7 + length], at + 7 + length
        if kind in (1, 2):
            pending = chunk
        else:
            pending += chunk
        if kind in (1, 4):
            chunks.append(pending)
    records = []
    for chunk in chunks:
        record = wandb_internal_pb2.Record()
        record.ParseFromString(chunk)
        records.append(record)
    return records


def _items(items: Any) -> dict[str, Any]:
    """A record's key/value items (a key may come split as ``nested_key``), values parsed."""
    return {item.key or "/".join(item.nested_key): json.loads(item.value_json) for item in items}


def _wandb_summary(local: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for record in _wandb_records(local):
        if record.WhichOneof("record_type") == "summary":
            out.update(_items(record.summary.update))
    return out


def test_wandb_offline_run_records_summary_config_and_samples(run_dir: Path, tmp_path: Path) -> None:
    pytest.importorskip("wandb")
    local = Path(log_to_wandb(run_dir, "physeval-tests"))
    assert local.is_relative_to(tmp_path / "wandb") and local.name.startswith("offline-run-")
    records = _wandb_records(local)
    summary = _wandb_summary(local)
    expected = scalars(read_summary(run_dir))
    for name, value in expected.items():
        assert summary[name] == pytest.approx(value)
    [history] = [r.history for r in records if r.WhichOneof("record_type") == "history"]
    logged = _items(history.item)
    assert logged["samples/_type"] == "table-file" and logged["samples/nrows"] == 12
    assert logged["accuracy"] == pytest.approx(expected["accuracy"])
    [run] = [r.run for r in records if r.WhichOneof("record_type") == "run"]
    config = _items(run.config.update)
    assert config["task"] == "bank-numeric" and config["run_dir"] == str(run_dir)


# -- the physeval run switches ------------------------------------------------------------------------------
def _reply(request: Request) -> Reply:
    return Reply.text("\\boxed{42}")


def test_physeval_run_logs_to_tensorboard_and_wandb_when_asked(tmp_path: Path) -> None:
    pytest.importorskip("tensorboardX")
    pytest.importorskip("wandb")
    from physeval.cli import main

    with ScriptedServer(_reply) as server:
        status = main(["run", "bank-numeric", "--model", "openai/m", "--base-url", server.base_url, "--limit", "1",
                       "--out", str(tmp_path / "run"), "--no-progress", "--no-preflight",
                       "--tensorboard", str(tmp_path / "tb"), "--wandb", "physeval-tests"])
    assert status == 0
    summary = read_summary(tmp_path / "run")
    written = {v.tag: v.simple_value for e in _events(tmp_path / "tb" / "run") for v in e.summary.value
               if v.HasField("simple_value")}  # the run's own subdirectory, named as its run directory
    assert written["accuracy"] == summary.metrics["accuracy"].value == 0.0
    [local] = (tmp_path / "wandb" / "wandb").glob("offline-run-*")
    assert _wandb_summary(local)["counts/samples"] == summary.counts.samples >= 1


def test_log_run_without_a_destination_writes_nothing(run_dir: Path, tmp_path: Path) -> None:
    assert log_run(run_dir) == {}
    assert not (tmp_path / "wandb").exists()
