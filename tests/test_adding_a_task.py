"""docs/adding-a-task.md, run as written: its toy task by hand, then trained by the real allenact command."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "adding-a-task.md"
SCENES = ROOT / "tests" / "data" / "scenes"


def guide_blocks() -> list[str]:
    """The guide's python blocks: [0] experiments/mcs_look_ppo.py, [1] the by-hand run."""
    return re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)


@pytest.fixture
def look_module(monkeypatch) -> types.ModuleType:
    """The guide's experiments/mcs_look_ppo.py, importable under that name without writing into the repository."""
    module = types.ModuleType("experiments.mcs_look_ppo")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(guide_blocks()[0], "experiments/mcs_look_ppo.py", "exec"), module.__dict__)
    return module


def test_the_toy_task_succeeds_by_hand(look_module, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    exec(compile(guide_blocks()[1], "docs/adding-a-task.md (by hand)", "exec"), namespace)
    metrics = namespace["task"].metrics()
    assert metrics["success"] == 1.0 and metrics["distance_to_target"] < 0.5
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "('RotateLeft', 'RotateRight', 'LookUp', 'LookDown', 'End')"


def test_the_toy_experiment_sizes_its_model_for_the_task(look_module):
    config = look_module.MCSLookPPOExperimentConfig(scenes=str(SCENES))
    assert config.action_count() == 5
    args = config.train_task_sampler_args(process_ind=0, total_processes=1)
    assert args["task_class"] is look_module.LookAtTargetTask


def test_the_toy_experiment_trains_with_allenact(tmp_path):
    (tmp_path / "mcs_look_ppo.py").write_text(guide_blocks()[0], encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path}", "OMP_NUM_THREADS": "1"}
    kwargs = json.dumps({"scenes": str(SCENES), "resolution": 32, "train_steps": 64, "rollout_steps": 16,
                         "processes": 1, "save_interval": 64})
    result = subprocess.run([sys.executable, "-m", "allenact.main", "mcs_look_ppo.py", "-o",
                             str(tmp_path / "runs"), "-s", "1", "--callbacks", "training_progress",
                             "--config_kwargs", kwargs], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=600)
    log = result.stdout + result.stderr
    assert list((tmp_path / "runs").glob("checkpoints/mcs-look-ppo/*/*.pt")), log[-3000:]
    assert "progress: 64/64 steps" in log and "Traceback" not in log, log[-3000:]
