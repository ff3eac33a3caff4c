"""Training progress line (AllenAct callback), learning-curve plots (`mcs-plugin plot`), tqdm only on terminals."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from tensorboardX import SummaryWriter

from experiments.mcs_retrieval_dagger import MCSRetrievalDAggerExperimentConfig
from mcs_plugin.cli import main
from mcs_plugin.scenes import generate
from mcs_plugin.training.curves import read_curves, smooth
from mcs_plugin.training.progress import TrainingProgress, pipeline_total_steps, progress_line

ROOT = Path(__file__).resolve().parents[1]
SCENES = ROOT / "tests" / "data" / "scenes"


@pytest.fixture(scope="module")
def trained_with_progress(tmp_path_factory) -> tuple[Path, str]:
    """A real 128-step AllenAct run with `--callbacks training_progress`: (output folder, its log)."""
    out = tmp_path_factory.mktemp("run")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "LP_NUM_THREADS": "1"}
    kwargs = json.dumps({"scenes": str(SCENES), "resolution": 32, "train_steps": 128, "rollout_steps": 16,
                         "processes": 2, "save_interval": 128, "max_steps": 10})  # episodes end within the run
    result = subprocess.run([sys.executable, "-m", "allenact.main", "experiments/mcs_retrieval_ppo.py", "-o", str(out),
                             "-s", "1", "--callbacks", "training_progress", "--config_kwargs", kwargs], cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=600)
    return out, result.stdout + result.stderr


def test_training_logs_progress_with_total_and_eta(trained_with_progress):
    _, log = trained_with_progress
    lines = [line for line in log.splitlines() if "progress: " in line]
    assert lines, log[-3000:]
    assert "32/128 steps (25%)" in lines[0] and "ETA" in lines[0]
    assert "128/128 steps (100%)" in lines[-1]


def test_plot_draws_the_runs_learning_curves(trained_with_progress, capsys):
    run, _ = trained_with_progress
    assert main(["plot", str(run)]) == 0
    assert "3 curves" in capsys.readouterr().out
    image = Image.open(run / "learning_curves.png")
    assert image.width > image.height > 100
    success = [c for c in read_curves(run, ["success"]) if c.mode == "train"]
    assert len(success) == 1 and success[0].steps[-1] == 128


def test_read_curves_finds_every_mode_and_log_folder(tmp_path, capsys):
    for folder, mode, steps in (("tb/exp/a", "train", (10, 30, 20)), ("tb/exp/b", "test", (30,))):
        with SummaryWriter(str(tmp_path / folder)) as writer:
            for step in steps:
                writer.add_scalar(f"{mode}-metrics/success", step / 100, step)
                writer.add_scalar(f"{mode}-losses/ppo", 1.0, step)  # not a metric: not read
    curves = read_curves(tmp_path, ["success", "reward"])
    assert [(c.log_dir, c.mode, c.metric) for c in curves] == [("tb/exp/a", "train", "success"),
                                                               ("tb/exp/b", "test", "success")]
    assert curves[0].steps.tolist() == [10, 20, 30] and curves[0].values.tolist() == pytest.approx([0.1, 0.2, 0.3])
    out = tmp_path / "plots" / "curves.png"
    assert main(["plot", str(tmp_path), "--out", str(out), "--metrics", "success"]) == 0
    assert Image.open(out).width > 0
    assert main(["plot", str(tmp_path), "--metrics", "spl"]) == 1
    assert "no tensorboard scalars for spl" in capsys.readouterr().err


def test_smoothing_is_tensorboards_debiased_moving_average():
    values = np.array([1.0, 0.0, 0.0])
    assert smooth(values, 0.0).tolist() == values.tolist()
    assert smooth(values, 0.5).tolist() == pytest.approx([1.0, 1 / 3, 1 / 7])


def test_progress_total_sums_every_pipeline_stage():
    config = MCSRetrievalDAggerExperimentConfig(train_steps=5000)
    total = pipeline_total_steps(config)
    assert total == sum(stage.max_stage_steps for stage in config.training_pipeline().pipeline_stages) == 5000


def test_progress_line_and_eta():
    assert progress_line(500, 2000, 10.0, 50.0) == "500/2,000 steps (25%), elapsed 00:10, ETA 00:30, 50.0 steps/s"
    assert progress_line(2500, 2000, 40.0, 50.0).startswith("2,000/2,000 steps (100%)")
    assert progress_line(0, 2000, 0.0, 0.0) == "0/2,000 steps (0%), elapsed 00:00, ETA ?, 0.0 steps/s"
    assert progress_line(10, float("inf"), 1.0, 10.0) == "10 steps, elapsed 00:01, 10.0 steps/s"


def test_progress_rate_is_measured_from_the_first_log(monkeypatch, capsys):
    """A run resumed at step 1000 reports the rate of this session's steps, not of the inherited ones."""
    clock = iter([0.0, 10.0, 20.0, 30.0])
    monkeypatch.setattr("mcs_plugin.training.progress.time.monotonic", lambda: next(clock))
    monkeypatch.setattr("mcs_plugin.training.progress.get_logger", lambda: logging.getLogger("progress-test"))
    logging.getLogger("progress-test").setLevel(logging.INFO)
    callback = TrainingProgress()
    callback.total = 3000
    callback.on_train_log(step=1000)
    callback.on_train_log(step=1500)
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.endswith("] progress: 1,500/3,000 steps (50%), elapsed 00:20, ETA 00:30, 50.0 steps/s")
    logging.getLogger("progress-test").setLevel(logging.WARNING)  # allenact --log_level warning: silent
    callback.on_train_log(step=2000)
    assert capsys.readouterr().err == ""


def test_progress_bars_stay_out_of_logs(tmp_path, capsys):
    """stderr is not a terminal here: the generator's tqdm bar draws nothing (no \\r noise in logs)."""
    generate("retrieval", 2, "train", "easy", 0, tmp_path, progress=True)
    assert "\r" not in capsys.readouterr().err
