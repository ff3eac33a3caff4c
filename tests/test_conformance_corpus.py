"""Fidelity regression guard: every recorded Unity test the embedded simulator reproduced when
tests/data/conformance/passing.json was written must still pass, at each tier.

Refresh the list after a change that makes more tests pass (never to hide a regression):

    .venv/bin/mcs-plugin conformance tests/data/conformance --write-passing tests/data/conformance/passing.json
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcs_plugin.conformance import TIERS, run_corpus

CORPUS = Path(__file__).parent / "data" / "conformance"
PASSING = json.loads((CORPUS / "passing.json").read_text())


@pytest.mark.parametrize("tier", TIERS)
def test_every_test_that_passed_still_passes(tier):
    result = run_corpus(CORPUS, tiers=[tier], tests=PASSING[tier], progress=False)[tier]
    broken = {r.name: r.failed_fields[:4] for r in result.results if not r.passed}
    assert not broken, f"{len(broken)} recorded {tier} tests no longer pass (failing fields): {broken}"
    assert result.total == len(PASSING[tier])
