"""How a hint names the next action: as a tool call for a model, as a command for a person.

Results and errors carry hints ("narrow with `in`", "call index(prefix=…)").
A model reads them in tool results and calls tools; a person reads them in a
terminal and types commands. Every phrase that names an action is built here
from a :class:`Syntax`, and the surface picks one (:data:`TOOL` for the MCP
server and the API loop, :data:`CLI` for the ``contextpull`` command), so
the wording of each hint exists once and always matches where it is shown.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Syntax:
    """The spelling of each action a hint can suggest."""

    #: the verb before an action ("call index(...)", "run contextpull index ...")
    verb: str
    #: the path filter, as named in running text
    filter: str
    #: how to pass a value to the path filter (``{value}`` is a quoted path)
    filter_with: str
    #: how to list the documents under a prefix (``{prefix}``)
    index_prefix: str
    #: how to ask grep
    grep: str
    #: how to ask for more results
    limit: str
    #: how to read a section on from a character offset (``{id}``, ``{offset}``)
    read_on: str

    def narrow(self, value: str) -> str:
        return self.filter_with.format(value=value)

    def expand(self, prefix: str) -> str:
        return self.index_prefix.format(prefix=prefix)

    def read_from(self, sid: str, offset: int) -> str:
        return self.read_on.format(id=sid, offset=offset)


TOOL = Syntax(
    verb="call",
    filter="`in`",
    filter_with="in={value!r}",
    index_prefix='index(prefix="{prefix}")',
    grep="grep",
    limit="`limit`",
    read_on="read id={id!r} offset={offset}",
)
CLI = Syntax(
    verb="run",
    filter="--in",
    filter_with="--in {value}",
    index_prefix="contextpull index --prefix {prefix}",
    grep="contextpull grep",
    limit="--limit",
    read_on="contextpull read {id} --offset {offset}",
)
