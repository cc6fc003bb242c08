"""A parser that hangs, raises or kills its process costs one call, never the caller."""

from __future__ import annotations

import time

import pytest

import isolate_targets as targets
from contextpull.ingestion.isolate import Isolated
from contextpull.parse.rendering import Unparseable


def test_a_call_over_the_time_limit_is_cut_off_and_the_next_call_works() -> None:
    with Isolated(time_limit=1.0) as isolated:
        assert isolated.call(targets.echo, "warm") == "warm"  # the child is up before timing
        started = time.perf_counter()
        with pytest.raises(Unparseable, match=r"took longer than 1 s \(time limit\)"):
            isolated.call(targets.hang, 60)
        assert time.perf_counter() - started < 10
        assert isolated.call(targets.echo, "again") == "again"


def test_a_crash_is_reported_with_its_exit_code_and_a_fresh_child_takes_over() -> None:
    with Isolated(time_limit=30) as isolated:
        with pytest.raises(Unparseable, match=r"parser crashed \(exit code 7\)"):
            isolated.call(targets.die, 7)
        assert isolated.call(targets.echo, "after") == "after"


def test_an_abort_under_a_memory_limit_is_reported_as_the_memory_limit() -> None:
    with Isolated(time_limit=30, memory_limit=1 << 30) as isolated:
        with pytest.raises(Unparseable, match=r"aborted, most likely needing more than 1024 MiB of memory"):
            isolated.call(targets.abort)
        assert isolated.call(targets.echo, "after") == "after"
    with Isolated(time_limit=30, memory_limit=0) as isolated, pytest.raises(Unparseable, match="exit code -6"):
        isolated.call(targets.abort)  # no limit: an abort is a crash like any other


def test_an_exception_costs_the_call_only() -> None:
    with Isolated(time_limit=30) as isolated:
        with pytest.raises(Unparseable, match=r"parser failed \(RuntimeError: boom\)"):
            isolated.call(targets.fail, "boom")
        assert isolated.call(targets.echo, "still here") == "still here"
