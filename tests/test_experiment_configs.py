"""Every experiment config builds samplers, tasks and a model that fit together; the passive one trains."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from allenact.base_abstractions.misc import Memory

from experiments.mcs_intuitive_physics_ppo import MCSIntuitivePhysicsPPOExperimentConfig
from experiments.mcs_retrieval_dagger import MCSRetrievalDAggerExperimentConfig
from experiments.mcs_retrieval_ppo import MCSRetrievalPPOExperimentConfig
from experiments.mcs_transferral_dagger import MCSTransferralDAggerExperimentConfig
from experiments.mcs_transferral_ppo import MCSTransferralPPOExperimentConfig
from experiments.mcs_traversal_ppo import MCSTraversalPPOExperimentConfig
from mcs_plugin.scenes import generate

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = [
    (MCSRetrievalPPOExperimentConfig, "retrieval"),
    (MCSRetrievalDAggerExperimentConfig, "retrieval"),
    (MCSTraversalPPOExperimentConfig, "traversal"),
    (MCSTransferralPPOExperimentConfig, "transferral"),
    (MCSTransferralDAggerExperimentConfig, "transferral"),
    (MCSIntuitivePhysicsPPOExperimentConfig, "intuitive_physics"),
]


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("scenes")
    for goal in {goal for _, goal in CONFIGS}:
        generate(goal, 2, "train", "easy", 3, root / goal, progress=False)
    return {goal: root / goal / "train" for goal in {goal for _, goal in CONFIGS}}


@pytest.mark.parametrize("config_class, goal", CONFIGS, ids=[c.__name__ for c, _ in CONFIGS])
def test_sampler_task_and_model_fit(config_class, goal, scenes):
    config = config_class(scenes=str(scenes[goal]), resolution=32)
    sampler = config.make_sampler_fn(**config.train_task_sampler_args(process_ind=0, total_processes=1))
    task = sampler.next_task()
    assert isinstance(task, config.TASK_CLASS)
    assert task.action_space.n == config.action_count()
    observations = task.get_observations()
    model = config.create_model()
    assert model.action_space.n == config.action_count()
    assert set(model.observation_space.spaces) <= set(observations)
    batch = {uuid: torch.as_tensor(observations[uuid])[None, None] for uuid in model.observation_space.spaces}
    memory = Memory({"rnn": (torch.zeros(1, 1, model.hidden_size), 1)})
    output, _ = model(batch, memory, torch.zeros(1, 1, dtype=torch.long), torch.zeros(1, 1, 1))  # (step, sampler, ...)
    assert output.distributions.probs.shape == (1, 1, config.action_count())
    assert torch.isfinite(output.values).all()
    sampler.close()


def test_intuitive_physics_experiment_trains_with_allenact(tmp_path, scenes):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "LP_NUM_THREADS": "1"}
    kwargs = {"scenes": str(scenes["intuitive_physics"]), "resolution": 32, "train_steps": 64, "rollout_steps": 16,
              "processes": 1, "save_interval": 64}
    result = subprocess.run([sys.executable, "-m", "allenact.main", "experiments/mcs_intuitive_physics_ppo.py",
                             "-o", str(tmp_path), "-s", "1", "--config_kwargs", json.dumps(kwargs)],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert list(tmp_path.glob("checkpoints/*/*/*.pt")), (result.stdout + result.stderr)[-3000:]


def test_device_follows_what_torch_sees():
    """'auto' trains on the GPUs when torch sees CUDA, else on the CPU; a bad or unavailable device is refused."""
    workers = MCSRetrievalPPOExperimentConfig(device="auto", workers_per_node=2).machine_params("train").devices
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert [d.type for d in workers] == [expected, expected]
    assert MCSRetrievalPPOExperimentConfig(device="cpu").machine_params("train").devices == (torch.device("cpu"),)
    with pytest.raises(ValueError, match="device must be"):
        MCSRetrievalPPOExperimentConfig(device="tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA GPU"):
            MCSRetrievalPPOExperimentConfig(device="cuda")


def test_transferral_dagger_labels_come_from_the_transferral_expert(scenes):
    """The DAgger transferral task's expert sensor gives the transferral expert's actions (labels exist)."""
    config = MCSTransferralDAggerExperimentConfig(scenes=str(scenes["transferral"]), resolution=32)
    sampler = config.make_sampler_fn(**config.train_task_sampler_args(process_ind=0, total_processes=1))
    task = sampler.next_task()
    labels = []
    for _ in range(20):
        action, ok = task.get_observations()["expert_action"]
        assert ok
        labels.append(task.class_action_names()[int(action)])
        task.step(int(action))
        if task.is_done():
            break
    assert {"MoveAhead", "RotateLeft", "RotateRight"} & set(labels)
    sampler.close()
