"""The fuzz suite: a fast slice runs with `make test`; the full-size run is marked slow."""

from __future__ import annotations

import pytest

from tests.fuzz.cases import make_cases
from tests.fuzz.outcome import is_clean_error
from tests.fuzz.runner import run_cases


def _assert_no_failures(seed: int, scenes: int, actions: int, configs: int) -> None:
    report = run_cases(make_cases(seed, scenes, actions, configs))
    assert report.failures() == 0, report.table() + "\n" + "\n".join(report.examples)
    counted = {kind: sum(counter.values()) for kind, counter in report.counts.items()}
    assert counted == {"scene": scenes, "actions": actions, "config": configs}
    assert all(counter["ok"] and counter["clean"] for counter in report.counts.values())  # both outcomes occur


def test_fast_slice():
    _assert_no_failures(seed=7, scenes=60, actions=60, configs=30)


@pytest.mark.slow
def test_full_size():
    _assert_no_failures(seed=0, scenes=2000, actions=2000, configs=300)


def test_the_clean_error_rule():
    assert is_clean_error(ValueError("parameter force=nan must be a finite number"))
    assert not is_clean_error(ValueError(""))
    assert not is_clean_error(UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"))
    assert not is_clean_error(OverflowError("cannot convert float infinity to integer"))
    assert not is_clean_error(KeyError("soccer_bal"))
