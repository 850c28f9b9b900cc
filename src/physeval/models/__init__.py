"""Model backends behind one async protocol: OpenAI-compatible servers and the embedded model."""

from physeval.models.base import Completion, Model, ModelError, split_reasoning
from physeval.models.local import LOCAL_MODEL_NAME, LocalModel, smollm2_gguf_path
from physeval.models.openai_compat import DEFAULT_BASE_URLS, OpenAICompatibleModel, RetryPolicy
from physeval.models.spec import model_from_spec

__all__ = [
    "Completion", "Model", "ModelError", "split_reasoning",
    "LocalModel", "LOCAL_MODEL_NAME", "smollm2_gguf_path",
    "OpenAICompatibleModel", "RetryPolicy", "DEFAULT_BASE_URLS", "model_from_spec",
]
