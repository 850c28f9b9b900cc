"""Test utilities that users may want too: a scripted OpenAI-compatible server on 127.0.0.1,
and the same script as an in-process model."""

from physeval.testing.model import ScriptedModel, ScriptedModelAPI
from physeval.testing.server import Reply, Request, ScriptedServer, flaky

__all__ = ["Reply", "Request", "ScriptedServer", "ScriptedModel", "ScriptedModelAPI", "flaky"]
