"""Retrying hosted model calls with exponential backoff.

The SDKs' own retries are switched off (``max_retries=0``) so that there is
one policy for both providers, one place that counts attempts for the error
message, and tests can make the backoff as short as they like.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from .base import ModelError

T = TypeVar("T")

#: HTTP statuses worth another try: timeout, conflict, rate limit, server errors, overload.
RETRYABLE_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})


@dataclass(frozen=True)
class RetryPolicy:
    """Up to ``attempts`` tries; try n waits ``base_delay * 2**(n-1)`` (±25 % jitter), at most ``max_delay``."""

    attempts: int = 5
    base_delay: float = 1.0
    max_delay: float = 30.0

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("RetryPolicy.attempts must be at least 1")

    def delay(self, failed_attempts: int) -> float:
        wait = min(self.max_delay, self.base_delay * 2 ** (failed_attempts - 1))
        return wait * random.uniform(0.75, 1.25)


class RetryableFailure(Exception):
    """Raised by a call wrapper to ask for another attempt; carries the one-line reason."""


def with_retries(call: Callable[[], T], policy: RetryPolicy, spec: str) -> T:
    """Run ``call``; on RetryableFailure wait and retry, then raise ModelError with the last reason."""
    for attempt in range(1, policy.attempts + 1):
        try:
            return call()
        except RetryableFailure as failure:
            if attempt == policy.attempts:
                plural = "s" if attempt > 1 else ""
                raise ModelError(f"{spec}: {failure} (gave up after {attempt} attempt{plural})") from failure
            time.sleep(policy.delay(attempt))
    raise AssertionError("unreachable: RetryPolicy guarantees attempts >= 1")


def _api_message(error: Exception) -> str:
    """The server's own error text from a Stainless SDK status error, on one line."""
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body["error"] if isinstance(body.get("error"), dict) else body
        kind, message = inner.get("type"), inner.get("message")
        if message:
            return f"{kind}: {message}" if kind else str(message)
    return str(getattr(error, "message", error))


def one_line(text: object) -> str:
    return " ".join(str(text).split())


def call_sdk(
    call: Callable[[], T],
    *,
    policy: RetryPolicy,
    spec: str,
    status_error: type[Exception],
    connection_error: type[Exception],
) -> T:
    """Run an ``anthropic``/``openai`` SDK call under our retry policy.

    Both SDKs raise ``APIConnectionError`` (timeouts included) and
    ``APIStatusError`` with ``status_code``; statuses in RETRYABLE_STATUSES and
    connection failures are retried, anything else fails at once.
    """

    def attempt() -> T:
        try:
            return call()
        except connection_error as error:
            raise RetryableFailure(f"connection failed: {one_line(error)}") from error
        except status_error as error:
            status = getattr(error, "status_code", 0)
            reason = f"HTTP {status} {one_line(_api_message(error))}"
            if status in RETRYABLE_STATUSES:
                raise RetryableFailure(reason) from error
            raise ModelError(f"{spec}: {reason}") from error

    return with_retries(attempt, policy, spec)
