"""Model backends behind one async protocol: providers that call, one wrapper that retries.

``ModelAPI`` providers (OpenAI-compatible servers, the embedded model, plugins registered with
:func:`register_provider`) make one call and classify its failure; :class:`RetryingModel` owns
retries, backoff, attempt counts, the preflight and closing.
"""

from physeval.models.base import Completion, GenerateConfig, Model, ModelAPI, ModelError, split_reasoning
from physeval.models.local import LOCAL_MODEL_NAME, LocalAPI, LocalModel, smollm2_gguf_path
from physeval.models.openai_compat import OpenAICompatibleAPI, OpenAICompatibleModel
from physeval.models.registry import DEFAULT_BASE_URLS, get_provider, provider_names, register_provider
from physeval.models.retry import RetryingModel, RetryPolicy
from physeval.models.spec import model_from_spec

__all__ = [
    "Completion", "GenerateConfig", "Model", "ModelAPI", "ModelError", "split_reasoning",
    "LocalAPI", "LocalModel", "LOCAL_MODEL_NAME", "smollm2_gguf_path",
    "OpenAICompatibleAPI", "OpenAICompatibleModel", "RetryingModel", "RetryPolicy", "DEFAULT_BASE_URLS",
    "model_from_spec", "register_provider", "provider_names", "get_provider",
]
