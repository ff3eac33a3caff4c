"""Multi-worker and multi-machine training: disjoint scene partitions, and two machines on loopback."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import torch

from experiments.mcs_retrieval_ppo import MCSRetrievalPPOExperimentConfig
from mcs_plugin.samplers import MCSSceneTaskSampler

ROOT = Path(__file__).resolve().parents[1]
SCENES = ROOT / "tests" / "data" / "scenes"


def test_partitions_are_disjoint_and_cover_all_scenes_across_machines():
    """2 machines x 2 workers x 2 sampler processes: process_ind counts across all of them."""
    config = MCSRetrievalPPOExperimentConfig(scenes=str(SCENES), nodes=2, workers_per_node=2, processes=2)
    total = sum(config.machine_params("train", machine_id=0).nprocesses)
    assert total == 8
    assert config.machine_params("train", machine_id=1).local_worker_ids == [2, 3]
    shares = []
    for process_ind in range(total):
        args = config.train_task_sampler_args(process_ind=process_ind, total_processes=total)
        sampler = MCSSceneTaskSampler(**{**args, "mode": "valid"})  # no oversampling: exact shares
        shares.append({str(p) for p in sampler.scenes})
        sampler.close()
    everything = set().union(*shares)
    assert sum(len(s) for s in shares) == len(everything)  # disjoint
    retrieval = {str(p) for p in MCSSceneTaskSampler(str(SCENES), [], mode="valid", goal_categories=["retrieval"]).scenes}
    assert everything == retrieval  # complete


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_train_workers_on_one_machine(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "LP_NUM_THREADS": "1"}
    kwargs = json.dumps({"scenes": str(SCENES), "resolution": 32, "train_steps": 128, "rollout_steps": 16,
                         "processes": 1, "workers_per_node": 2, "save_interval": 128})
    result = subprocess.run([sys.executable, "-m", "allenact.main", "experiments/mcs_retrieval_ppo.py", "-o",
                             str(tmp_path), "-s", "1", "--config_kwargs", kwargs], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=600)
    log = result.stdout + result.stderr
    assert list(tmp_path.glob("checkpoints/*/*/*.pt")), log[-3000:]
    assert "[train worker 1]" in log and "abnormally terminated" not in log, log[-3000:]


def test_readme_cluster_command_trains_one_model_on_both_machines(tmp_path):
    """The README's cluster command as written (no -s): both machines share one seed and end with one model."""
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "LP_NUM_THREADS": "1"}
    kwargs = json.dumps({"scenes": str(SCENES), "resolution": 32, "train_steps": 128, "rollout_steps": 16,
                         "processes": 2, "nodes": 2, "save_interval": 128})
    runs = []
    for machine in (0, 1):
        command = [sys.executable, "-m", "allenact.main", "experiments/mcs_retrieval_ppo.py", "-o",
                   str(tmp_path / f"m{machine}"), "--config_kwargs", kwargs,
                   "--distributed_ip_and_port", f"127.0.0.1:{port}", "--machine_id", str(machine)]
        runs.append(subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True))
    logs = [run.communicate(timeout=600)[0] for run in runs]
    for log in logs:
        assert "abnormally terminated" not in log and "Traceback" not in log, log[-3000:]
    seeds = [re.findall(r"machine_id == \d+ using port \d+ and seed (\d+)", log) for log in logs]
    assert seeds[0] and seeds[0] == seeds[1], seeds
    finals = [max((tmp_path / f"m{machine}").glob("checkpoints/*/*/*.pt"), key=lambda p: p.stat().st_mtime)
              for machine in (0, 1)]
    states = [torch.load(path, map_location="cpu")["model_state_dict"] for path in finals]
    assert states[0].keys() == states[1].keys()
    for name in states[0]:
        assert torch.equal(states[0][name], states[1][name]), name
