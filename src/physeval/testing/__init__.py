"""Test utilities that users may want too: a scripted OpenAI-compatible server on 127.0.0.1."""

from physeval.testing.server import Reply, Request, ScriptedServer, flaky

__all__ = ["Reply", "Request", "ScriptedServer", "flaky"]
