"""``with`` support for the handles that hold a store connection."""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Self


class Closeable(ABC):
    """Closes itself when a ``with`` block ends, whatever ended it."""

    @abstractmethod
    def close(self) -> None:
        """Release the connection; safe to call twice."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
