"""The one model layer of the harness: providers, disk cache, token and cost accounting.

``get_provider("anthropic:<model>" | "openai:<model>" | "local:<name-or-path.gguf>" | "none")``
returns a ``Provider`` whose every call goes through the disk cache (when a
``cache_dir`` is given) and is counted in a ``Ledger``. See docs/adr/007-model-layer.md.
"""

from .base import Completion, Message, ModelError, NoModelConfigured, Provider, ToolCall, Usage
from .cache import CompletionCache
from .ledger import Ledger, default_ledger
from .metered import MeteredProvider
from .registry import PROVIDERS, get_provider
from .retry import RetryPolicy

__all__ = [
    "PROVIDERS",
    "Completion",
    "CompletionCache",
    "Ledger",
    "Message",
    "MeteredProvider",
    "ModelError",
    "NoModelConfigured",
    "Provider",
    "RetryPolicy",
    "ToolCall",
    "Usage",
    "default_ledger",
    "get_provider",
]
