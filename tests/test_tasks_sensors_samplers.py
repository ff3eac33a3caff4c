"""AllenAct tasks, sensors and task samplers over the embedded simulator."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mcs_plugin.samplers import MCSSceneTaskSampler, list_scenes, partition
from mcs_plugin.sensors import (
    DepthSensor, GoalCategorySensor, HapticSensor, InstanceMaskSensor, PoseSensor, RGBSensor, TargetColorSensor,
)
from mcs_plugin.sim.controller import EmbeddedController
from mcs_plugin.tasks import ActionVocabulary, IntuitivePhysicsTask, RetrievalTask, TraversalTask, grid_points
from tests.sim_scenes import DATA, ball, scene, wall

RETRIEVAL_GOAL = {"category": "retrieval", "metadata": {"target": {"id": "ball"}}, "last_step": 50}


def embedded(size: int = 32, **config):
    return lambda: EmbeddedController({"metadata": "oracle", "width": size, "height": size, **config})


def write_scenes(tmp_path, scenes: dict) -> str:
    for name, data in scenes.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(data))
    return str(tmp_path)


def sampler_for(tmp_path, scenes: dict, sensors=None, **kwargs) -> MCSSceneTaskSampler:
    directory = write_scenes(tmp_path, scenes)
    return MCSSceneTaskSampler(directory, sensors or [RGBSensor(32, 32)], env_factory=embedded(), seed=0, **kwargs)


def act(task, name):
    return task.step(task.vocabulary.index(name))


# -- tasks -----------------------------------------------------------------------------------------
def test_retrieval_success_reward_and_metrics(tmp_path):
    sampler = sampler_for(tmp_path, {"a": scene(ball(z=1.14), goal=RETRIEVAL_GOAL, tilt=30)})
    task = sampler.next_task()
    assert isinstance(task, RetrievalTask)
    assert task.action_space.n == len(task.class_action_names()) == 5 + 3 + 3  # moves, 3 pickup and 3 open points
    start_distance = task.distance_to_target(task.env.last_output)
    result = act(task, "PickupObject")
    assert result.info["last_action_success"] and task.is_done()
    terms = result.info["reward_terms"]
    assert terms == {"success": 10.0, "step": -0.01, "failed_action": 0.0, "aim": 0.0,
                     "progress": pytest.approx(start_distance)}
    assert result.reward == pytest.approx(sum(terms.values()))
    metrics = task.metrics()
    assert metrics["success"] == 1.0 and metrics["ep_length"] == 1 and metrics["spl"] == 1.0
    assert metrics["reward_success"] == 10.0 and metrics["reward"] == pytest.approx(result.reward)
    assert metrics["task_info"] == {"scene": "test", "scene_path": str(tmp_path / "a.json"),
                                    "goal_category": "retrieval", "difficulty": None, "ended": "success"}
    assert all(isinstance(v, (int, float)) for k, v in metrics.items() if k != "task_info")
    sampler.close()


def test_failed_actions_progress_and_max_steps(tmp_path):
    sampler = sampler_for(tmp_path, {"a": scene(ball(z=3.0), goal=RETRIEVAL_GOAL)}, max_steps=4)
    task = sampler.next_task()
    result = act(task, "PickupObject")  # nothing pickupable at the crosshair
    assert not result.info["last_action_success"]
    assert result.info["reward_terms"]["failed_action"] == -0.02 and result.reward == pytest.approx(-0.03, abs=1e-4)
    forward = act(task, "MoveAhead")
    assert forward.info["reward_terms"]["progress"] == pytest.approx(0.1, abs=1e-6)  # 0.1 m closer to the target
    with pytest.raises(ValueError):
        task.vocabulary.index("End")  # retrieval ends on success or at max_steps, never by quitting
    act(task, "RotateLeft")
    act(task, "RotateRight")
    assert task.is_done()
    metrics = task.metrics()
    assert metrics["success"] == 0.0 and metrics["failed_actions"] == 1 and metrics["spl"] == 0.0
    assert metrics["task_info"]["ended"] == "max_steps"
    assert metrics["distance_to_target"] == pytest.approx(3.0 - 0.25 - 1.0 - 0.1, abs=1e-6)  # ball radius, reach


def test_interaction_grid_vocabulary():
    vocabulary = ActionVocabulary(("MoveAhead", "PickupObject", "PutObject"), points=grid_points(2, 2))
    assert len(vocabulary) == 1 + 4 + 4
    name, params = vocabulary[vocabulary.index("PickupObject", (0.75, 0.25))].call(600, 400)
    assert (name, params) == ("PickupObject", {"objectImageCoordsX": 450, "objectImageCoordsY": 100})
    assert vocabulary[vocabulary.index("PutObject")].call(100, 100)[1] == {
        "receptacleObjectImageCoordsX": 25, "receptacleObjectImageCoordsY": 25}


def test_traversal_task_succeeds_near_target(tmp_path):
    goal = {"category": "traversal", "metadata": {"target": {"id": "ball"}}}
    sampler = sampler_for(tmp_path, {"a": scene(ball(z=2.0), goal=goal)})
    task = sampler.next_task()
    assert isinstance(task, TraversalTask)
    while not task.is_done():
        act(task, "MoveAhead")
    assert task.metrics()["success"] == 1.0 and task.num_steps_taken() < 15


def test_last_step_ends_the_episode(tmp_path):
    goal = dict(RETRIEVAL_GOAL, last_step=3)
    task = sampler_for(tmp_path, {"a": scene(ball(z=3), goal=goal)}).next_task()
    for _ in range(3):
        act(task, "RotateLeft")
    assert task.is_done() and task.metrics()["success"] == 0.0


def test_passive_task_choice_accuracy(tmp_path):
    goal = {"category": "intuitive physics", "last_step": 5, "answer": {"choice": "implausible"}}
    task = sampler_for(tmp_path, {"a": scene(ball(z=2), goal=goal, intuitivePhysics=True)}).next_task()
    assert isinstance(task, IntuitivePhysicsTask)
    assert task.action_space.n == 1 + 2 * 3
    task.step(0)
    assert not task.is_done()
    expert_action, ok = task.query_expert()
    assert ok and expert_action == 0  # watch until the end first
    names = task.class_action_names()
    result = task.step(names.index("implausible@0.75"))
    assert task.is_done() and result.reward == pytest.approx(7.5)
    assert task.metrics() == {"accuracy": 1.0, "chose": 1.0, "confidence": 0.75, "ep_length": 2, "reward": 7.5}


# -- sensors ---------------------------------------------------------------------------------------
def test_sensor_shapes_units_and_spaces(tmp_path):
    sensors = [RGBSensor(24, 32), DepthSensor(24, 32, normalize=False), InstanceMaskSensor(24, 32),
               GoalCategorySensor(), PoseSensor(), HapticSensor(), TargetColorSensor()]
    task = sampler_for(tmp_path, {"a": scene(ball(z=1.5), goal=RETRIEVAL_GOAL)}, sensors=sensors).next_task()
    observations = task.get_observations()
    for sensor in sensors:
        value = observations[sensor.uuid]
        assert sensor.observation_space.contains(value), sensor.uuid
    depth = observations["depth"]
    assert depth.shape == (24, 32, 1) and 0.5 < depth[12, 16, 0] < 15.0
    assert observations["goal_category"][list(GoalCategorySensor().observation_space.shape)[0] - 1] in (0.0, 1.0)
    assert observations["target_color"].sum() >= 1  # the blue ball
    assert observations["pose"][3] == pytest.approx(1.0)  # cos(yaw 0)


def test_goal_image_from_scene_metadata(tmp_path):
    from mcs_plugin.sensors import GoalImageSensor

    image = np.zeros((8, 8, 3), np.uint8)
    image[:, :, 0] = 255
    goal = {"category": "retrieval", "metadata": {"target": {"id": "ball", "image": image.tolist()}}}
    sensor = GoalImageSensor(16, 16)
    task = sampler_for(tmp_path, {"a": scene(ball(z=1.5), goal=goal)}, sensors=[sensor]).next_task()
    value = task.get_observations()["goal_image"]
    assert value.shape == (16, 16, 3) and value[..., 0].min() == pytest.approx(1.0) and value[..., 1].max() == 0.0


# -- samplers --------------------------------------------------------------------------------------
def test_partition_is_disjoint_and_complete():
    scenes = [f"s{i}" for i in range(10)]
    shares = [partition(scenes, i, 3) for i in range(3)]
    assert sorted(s for share in shares for s in share) == sorted(scenes)  # every scene once: disjoint and complete
    assert partition(scenes[:2], 4, 5, oversample=True) == ["s0"]
    assert partition(scenes[:2], 4, 5, oversample=False) == []


def test_list_scenes_from_dir_glob_and_manifest(tmp_path):
    write_scenes(tmp_path, {"a": scene(), "b": scene()})
    (tmp_path / "m.jsonl").write_text(json.dumps({"id": "a", "path": "a.json", "optimal_steps": 7}) + "\n")
    assert len(list_scenes(tmp_path)) == 2
    assert len(list_scenes(str(tmp_path / "*.json"))) == 2
    assert [p.name for p in list_scenes(tmp_path / "m.jsonl")] == ["a.json"]
    with pytest.raises(FileNotFoundError):
        list_scenes(str(tmp_path / "nothing-*.json"))


def test_eval_sampler_makes_one_pass_and_rewinds(tmp_path):
    sampler = sampler_for(tmp_path, {f"s{i}": scene(ball(z=2), goal=RETRIEVAL_GOAL) for i in range(3)}, mode="valid")
    assert sampler.length == 3 and sampler.total_unique == 3
    names = [sampler.next_task().task_info["scene_name"] for _ in range(3)]
    assert sampler.next_task() is None and sampler.length == 0
    sampler.reset()
    assert [sampler.next_task().task_info["scene_name"] for _ in range(3)] == names
    sampler.close()


def test_train_sampler_loops_and_skips_bad_scenes(tmp_path):
    (tmp_path / "broken.json").write_text("{not json")
    sampler = sampler_for(tmp_path, {"good": scene(ball(z=2), goal=RETRIEVAL_GOAL)}, mode="train")
    tasks = [sampler.next_task() for _ in range(4)]
    assert all(t is not None for t in tasks)
    assert sampler.skipped and "broken.json" in sampler.skipped[0][0]
    strict = sampler_for(tmp_path, {"good": scene(goal=RETRIEVAL_GOAL)}, mode="valid", strict=True)
    with pytest.raises(Exception, match="broken.json"):
        for _ in range(2):
            strict.next_task()


def test_sample_scenes_give_tasks_for_every_category():
    sampler = MCSSceneTaskSampler(DATA / "scenes", [RGBSensor(16, 16)], mode="test", env_factory=embedded(16))
    categories = set()
    while (task := sampler.next_task()) is not None:
        categories.add(task.task_info["goal_category"])
        task.step(0)
    assert {"retrieval", "multi retrieval", "intuitive physics", "agents", "traversal", "transferral"} <= categories
    sampler.close()


def test_following_query_expert_solves_retrieval(tmp_path):
    task = sampler_for(tmp_path, {"a": scene(ball(x=1.0, z=2.5), wall(z=1.2, width=1.5), goal=RETRIEVAL_GOAL)}).next_task()
    while not task.is_done():
        action, ok = task.query_expert()
        assert ok
        task.step(action)
    assert task.metrics()["success"] == 1.0


def test_query_expert_without_an_expert_is_masked(tmp_path):
    goal = {"category": "imitation", "metadata": {"target": {"id": "ball"}}, "last_step": 5}
    task = sampler_for(tmp_path, {"a": scene(ball(z=2), goal=goal)}).next_task()
    assert isinstance(task, RetrievalTask)  # imitation scenes are retrieval tasks, but have no expert
    assert task.query_expert() == (0, False)
