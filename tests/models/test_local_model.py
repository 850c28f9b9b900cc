"""The embedded SmolLM2 answers offline from the wheel's GGUF (skipped without the `local` extra)."""

from __future__ import annotations

import asyncio

import pytest

from physeval.models import LocalModel, ModelError, model_from_spec, smollm2_gguf_path

llama_cpp = pytest.importorskip("llama_cpp", reason="the `local` extra (llama-cpp-python) is not installed")


def test_gguf_ships_in_the_wheel() -> None:
    path = smollm2_gguf_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 50_000_000


def test_local_model_answers_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    model = model_from_spec("local")
    assert isinstance(model, LocalModel)
    completions = asyncio.run(model.generate([{"role": "user", "content": "What is the capital of France?"}],
                                             n=2, max_tokens=24, temperature=0.0, seed=1))
    assert len(completions) == 2
    assert all(c.text.strip() and c.finish_reason in ("stop", "length") for c in completions)
    assert completions[0].usage["completion_tokens"] <= 24 and completions[0].latency_s > 0
    assert model.cache_identity.startswith("local|SmolLM2")


def test_missing_gguf_is_a_clear_model_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    model = LocalModel(tmp_path / "absent.gguf")
    with pytest.raises(ModelError, match="llama.cpp|absent"):
        asyncio.run(model.generate([{"role": "user", "content": "hi"}], max_tokens=4))
