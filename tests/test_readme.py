"""The README's examples run as written and do what their comments say."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def python_blocks() -> list[str]:
    """The README's ```python blocks, in order."""
    return re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)


def test_first_example_ends_in_a_successful_pickup(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    exec(compile(python_blocks()[0], "README.md (embedded simulator example)", "exec"), namespace)
    output = namespace["output"]
    assert output.return_status == "SUCCESSFUL" and output.reward > 0
    target = output.goal.target_ids()[0]
    assert any(o.uuid == target and o.held for o in output.object_list)
    assert capsys.readouterr().out.startswith("SUCCESSFUL 1.0")
    assert namespace["rgb"].size == (600, 400) and namespace["depth"].shape == (400, 600)
