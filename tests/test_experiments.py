"""The real AllenAct CLI trains and evaluates MCS experiments (allenact exits 0 even after a crash: check files)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCENES = ROOT / "tests" / "data" / "scenes"


def allenact(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "LP_NUM_THREADS": "1"}
    command = [sys.executable, "-m", "allenact.main", *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def kwargs(**values) -> str:
    return json.dumps({"scenes": str(SCENES), "test_scenes": str(SCENES), "resolution": 32, "processes": 2, **values})


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ppo")
    result = allenact("experiments/mcs_retrieval_ppo.py", "-o", str(out), "-s", "1",
                      "--config_kwargs", kwargs(train_steps=128, rollout_steps=32, save_interval=64))
    checkpoints = sorted(out.glob("checkpoints/*/*/*.pt"))
    assert checkpoints, f"no checkpoint written:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return out


def test_ppo_training_leaves_checkpoints_and_tensorboard_logs(trained):
    checkpoints = sorted(trained.glob("checkpoints/*/*/*.pt"))
    assert any("steps_000000000128" in c.name for c in checkpoints)
    assert list(trained.glob("tb/*/*/events.out.tfevents.*"))


def test_eval_writes_numeric_test_metrics(trained):
    checkpoint = sorted(trained.glob("checkpoints/*/*/*128.pt"))[-1]
    result = allenact("experiments/mcs_retrieval_ppo.py", "-o", str(trained), "-s", "1", "--eval", "-c",
                      str(checkpoint), "--config_kwargs", kwargs(max_steps=20))
    files = list(trained.glob("metrics/*/*/metrics__test_*.json"))
    assert files, f"no test metrics written:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    tasks = json.loads(files[0].read_text())[0]["tasks"]
    retrieval_scenes = sum(1 for p in SCENES.glob("*.json") if '"category": "retrieval"' in p.read_text(encoding="utf-8-sig"))
    assert len(tasks) == retrieval_scenes
    for metrics in tasks:
        assert {"success", "ep_length", "reward", "mcs_reward", "failed_actions"} <= set(metrics)
        assert 1 <= metrics["ep_length"] <= 20


def test_evaluate_command_finds_the_experiment_and_films_episodes(trained, tmp_path, capsys):
    from mcs_plugin.cli import main

    checkpoint = sorted(trained.glob("checkpoints/*/*/*.pt"))[-1]
    scenes = sorted(p for p in SCENES.glob("*.json") if '"category": "retrieval"' in p.read_text(encoding="utf-8-sig"))[:2]
    code = main(["evaluate", str(checkpoint), *map(str, scenes), "--json", "--max-steps", "6",
                 "--video", str(tmp_path / "videos")])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["episodes"] == 2 and 0.0 <= report["success"] <= 1.0 and 0.0 <= report["spl"] <= 1.0
    assert [row["scene"] for row in report["per_scene"]] == [str(p) for p in scenes]
    assert all(1 <= row["ep_length"] <= 6 and row["ended"] in ("success", "max_steps", "scene_over")
               for row in report["per_scene"])
    assert report["by_category"]["retrieval"]["episodes"] == 2
    videos = sorted((tmp_path / "videos").glob("*.gif"))
    assert len(videos) == 2 and all(row["video"] for row in report["per_scene"])
    from PIL import Image

    with Image.open(videos[0]) as gif:
        assert gif.size == (512, 256) and gif.n_frames >= 2  # agent view beside the map, one frame per step


def test_evaluate_command_rejects_a_missing_checkpoint(capsys):
    from mcs_plugin.cli import main

    assert main(["evaluate", "no/such/checkpoint.pt", str(SCENES)]) == 2
    assert "no such checkpoint" in capsys.readouterr().err
