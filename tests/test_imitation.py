"""Expert trajectory datasets and their offline replay; pass ordering shared by the samplers."""

from __future__ import annotations

import json

import numpy as np

from mcs_plugin.imitation import ReplayTaskSampler, collect_expert_trajectories, read_index
from mcs_plugin.samplers.passes import Passes
from mcs_plugin.sensors import RGBSensor
from mcs_plugin.tasks import RetrievalTask
from tests.sim_scenes import ball, scene

PICKUP_INDEX = RetrievalTask.default_actions.index("PickupObject")  # its first interaction point
GOAL = {"category": "retrieval", "metadata": {"target": {"id": "ball"}}, "last_step": 100}


def test_passes_loop_shuffled_or_once_in_order():
    once = Passes([1, 2, 3], loop=False, seed=0)
    assert [once.next() for _ in range(4)] == [1, 2, 3, None] and once.remaining == 0
    once.reset()
    assert once.next() == 1 and once.remaining == 2
    looping = Passes(list(range(5)), loop=True, seed=0)
    first, second = [looping.next() for _ in range(5)], [looping.next() for _ in range(5)]
    assert sorted(first) == sorted(second) == list(range(5)) and looping.remaining == float("inf")
    again = Passes(list(range(5)), loop=True, seed=0)
    assert [again.next() for _ in range(5)] == first  # seeded: the same order every time


def test_collect_then_replay_expert_episodes(tmp_path):
    scenes = []
    for i, x in enumerate((0.0, 0.8)):
        path = tmp_path / f"s{i}.json"
        path.write_text(json.dumps(scene(ball(x=x, z=2.0), goal=GOAL)))
        scenes.append(path)
    stats = collect_expert_trajectories(scenes, tmp_path / "data", resolution=32, progress=False)
    assert stats["episodes"] == stats["successful"] == 2 and stats["steps"] > 2
    index = read_index(tmp_path / "data")
    assert [e["scene_path"] for e in index] == [str(p) for p in scenes]

    sampler = ReplayTaskSampler(str(tmp_path / "data"), [RGBSensor(32, 32)], action_count=8, mode="valid")
    for entry in index:
        task = sampler.next_task()
        assert task.task_info["scene_path"] == entry["scene_path"]  # one pass, in order
        assert task.get_observations()["rgb"].shape == (32, 32, 3)
        actions = []
        while not task.is_done():
            action, ok = task.query_expert()
            assert ok
            actions.append(action)
            task.step(action)
        assert len(actions) == entry["length"]  # every recorded frame is replayed once
        assert actions[-1] == PICKUP_INDEX  # successful retrieval episodes end with the pickup
        assert task.metrics()["expert_agreement"] == 1.0
    assert sampler.next_task() is None


def test_replay_frames_match_the_recording(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scene(ball(z=2.0), goal=GOAL)))
    collect_expert_trajectories([path], tmp_path / "data", resolution=32, progress=False)
    recorded = np.load(tmp_path / "data" / read_index(tmp_path / "data")[0]["file"])["rgb"]
    task = ReplayTaskSampler(str(tmp_path / "data"), [RGBSensor(32, 32)], action_count=8, mode="test").next_task()
    np.testing.assert_array_equal(task.render(), recorded[0])
    task.step(0)
    np.testing.assert_array_equal(task.render(), recorded[1])


def test_bc_training_without_a_dataset_stops_in_the_main_process_with_the_real_message(tmp_path):
    """The README's BC command with no dataset: a non-zero exit naming the missing index, before any worker."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root), "OMP_NUM_THREADS": "1"}
    for dataset in (tmp_path / "missing", tmp_path / "empty"):
        if dataset.name == "empty":
            dataset.mkdir()
            (dataset / "index.jsonl").write_text("")
        result = subprocess.run([sys.executable, "-m", "allenact.main", "experiments/mcs_retrieval_bc.py", "-o",
                                 str(tmp_path / "run"), "--config_kwargs", json.dumps({"dataset": str(dataset)})],
                                cwd=root, env=env, capture_output=True, text=True, timeout=300)
        expected = "no index.jsonl" if dataset.name == "missing" else "the expert dataset has no episodes"
        assert result.returncode != 0 and expected in result.stderr.splitlines()[-1], result.stderr[-2000:]
        assert "VectorSampledTask" not in result.stderr and "BrokenPipeError" not in result.stderr  # no worker


def test_bc_evaluation_needs_no_dataset():
    from experiments.mcs_retrieval_bc import MCSRetrievalBCExperimentConfig

    config = MCSRetrievalBCExperimentConfig(dataset="/nonexistent")
    assert config.machine_params("test").devices  # test workers are set up; the dataset is not read
