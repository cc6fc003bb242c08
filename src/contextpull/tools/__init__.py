"""The five tool schemas, declared once, their dispatch, and the prompt text
(pull discipline and index) that every surface gives the model."""

from .instructions import claude_md, server_instructions
from .schemas import TOOLS, TOOLS_VERSION, call, call_json, openai_tools, validate

__all__ = [
    "TOOLS",
    "TOOLS_VERSION",
    "call",
    "call_json",
    "claude_md",
    "openai_tools",
    "server_instructions",
    "validate",
]
