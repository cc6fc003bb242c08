"""Loopback stand-ins for the Anthropic and OpenAI HTTP APIs, driven by scripts.

Tests point the real SDKs at them (ANTHROPIC_BASE_URL / OPENAI_BASE_URL) and
assert on ``fake.requests`` / ``fake.bodies``.
"""

from .anthropic_server import AnthropicFake
from .openai_server import OpenAIFake
from .scripted import Reply, Request, ScriptedServer

__all__ = ["AnthropicFake", "OpenAIFake", "Reply", "Request", "ScriptedServer"]
