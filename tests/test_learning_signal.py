"""The learning signal of interactive tasks: no quitting, path-distance shaping, reward terms reported apart."""

from __future__ import annotations

import json

import pytest

from mcs_plugin.samplers import MCSSceneTaskSampler
from mcs_plugin.sensors import TargetPointSensor
from mcs_plugin.sim.controller import EmbeddedController
from mcs_plugin.tasks import MultiRetrievalTask, RetrievalTask, TransferralTask, TraversalTask
from mcs_plugin.tasks.base import REWARD_TERMS
from tests.sim_scenes import ball, scene, wall

GOAL = {"category": "retrieval", "metadata": {"target": {"id": "ball"}}, "last_step": 500}


def sampler(tmp_path, data: dict, max_steps: int = 60) -> MCSSceneTaskSampler:
    (tmp_path / "s.json").write_text(json.dumps(data))
    return MCSSceneTaskSampler(str(tmp_path), [TargetPointSensor()], max_steps=max_steps, seed=0,
                               env_factory=lambda: EmbeddedController({"metadata": "oracle", "width": 64, "height": 64}))


def run_episode(task, choose) -> float:
    """Play `choose(task)` until the episode ends; returns its return."""
    total = 0.0
    while not task.is_done():
        total += task.step(choose(task)).reward
    return total


@pytest.mark.parametrize("task_class", [RetrievalTask, MultiRetrievalTask, TraversalTask, TransferralTask])
def test_interactive_vocabularies_have_no_end(task_class):
    assert "End" not in task_class.default_actions


def test_quitting_never_scores_better_than_trying(tmp_path):
    """No action ends a retrieval episode early; the expert's return beats idling and random play to max_steps."""
    import random

    source = sampler(tmp_path, scene(ball(z=2.5), goal=GOAL))
    expert_task = source.next_task()
    expert_return = run_episode(expert_task, lambda t: t.query_expert()[0])
    assert expert_task.metrics()["success"] == 1.0 and expert_task.end_reason() == "success"

    source.reset()
    idle = source.next_task()
    idle_return = run_episode(idle, lambda t: t.vocabulary.index("RotateLeft"))
    assert idle.num_steps_taken() == 60 and idle.end_reason() == "max_steps"  # the only way out but success

    source.reset()
    rng = random.Random(0)
    random_task = source.next_task()
    random_return = run_episode(random_task, lambda t: rng.randrange(t.action_space.n))
    assert not random_task.metrics()["success"]
    assert expert_return > max(idle_return, random_return) + 5.0
    source.close()


def test_progress_follows_the_path_around_a_wall(tmp_path):
    """A wall between the performer and the target: the shaped distance is the way round, not through it."""
    source = sampler(tmp_path, scene(wall(z=1.0, width=3.0), ball(z=2.6, diameter=0.3), goal=GOAL))
    task = source.next_task()
    output = task.env.last_output
    straight = 2.6 - 0.15 - 1.0  # to within reach of the ball, through the wall
    assert task.distance_to_target(output) > straight + 0.5
    result = task.step(task.vocabulary.index("MoveAhead"))  # toward the wall: closer in a line, not on the path
    assert result.info["reward_terms"]["progress"] < 0.05
    source.close()


def test_reward_terms_add_up_and_are_logged(tmp_path):
    source = sampler(tmp_path, scene(ball(z=2.0), goal=GOAL), max_steps=5)
    task = source.next_task()
    total = 0.0
    for name in ("MoveAhead", "PickupObject", "RotateRight", "MoveAhead", "LookDown"):
        result = task.step(task.vocabulary.index(name))
        assert set(result.info["reward_terms"]) == set(REWARD_TERMS)
        assert result.reward == pytest.approx(sum(result.info["reward_terms"].values()))
        total += result.reward
    metrics = task.metrics()
    assert metrics["reward"] == pytest.approx(total)
    assert sum(metrics[f"reward_{term}"] for term in REWARD_TERMS) == pytest.approx(total)
    assert metrics["reward_failed_action"] == pytest.approx(-0.02)  # the pickup out of reach
    source.close()


def test_target_point_sensor_bearing_and_distance(tmp_path):
    source = sampler(tmp_path, scene(ball(x=1.0, z=1.0), goal=GOAL))
    task = source.next_task()
    point = task.get_observations()["target_point"]
    assert point[0] == pytest.approx(2 ** 0.5 / 10, abs=0.02)  # x-z distance / 10 m
    assert point[1] == pytest.approx(2 ** -0.5, abs=0.02) and point[2] == pytest.approx(2 ** -0.5, abs=0.02)  # 45 deg right
    assert point[3] > 0.0  # below the view axis (the ball is on the floor)
    turns = [task.step(task.vocabulary.index("RotateRight")) for _ in range(4)]  # face it
    assert task.get_observations()["target_point"][1] == pytest.approx(0.0, abs=0.09)
    assert all(t.info["reward_terms"]["aim"] > 0 for t in turns)  # each turn brings the view toward it
    away = task.step(task.vocabulary.index("LookUp"))
    assert away.info["reward_terms"]["aim"] < 0
    source.close()


def test_expert_labels_ignore_the_learners_failed_actions(tmp_path):
    """Under DAgger the learner acts: its failed action where the expert said pick up must not count as the
    expert's failed aim."""
    source = sampler(tmp_path, scene(ball(z=2.5), goal=GOAL))
    task = source.next_task()
    pickup = task.vocabulary.index("PickupObject")
    label, ok = task.query_expert()
    while ok and label != pickup and not task.is_done():
        task.step(label)
        label, ok = task.query_expert()
    assert ok and label == pickup
    task.step(task.vocabulary.index("OpenObject"))  # the learner tries to open the ball instead
    assert not task.last_action_success
    assert task.query_expert() == (pickup, True)
    assert task._expert.failures == 0 and not any(task._expert._bad.values())
    source.close()


def test_expert_labels_pause_after_the_expert_finds_no_way(tmp_path):
    """Where the expert finds no way on (the target walled off), the next steps go unlabelled instead of paying
    for the same futile search at every step; then it is asked again."""
    from mcs_plugin.tasks.base import LABEL_RETRY_STEPS

    source = sampler(tmp_path, scene(wall(z=2.0, width=10.0), ball(z=3.5), goal=GOAL))
    task = source.next_task()
    assert task.query_expert() == (0, False)
    asked = []
    ask = task._expert.next_action
    task._expert.next_action = lambda output: asked.append(output.step_number) or ask(output)
    turn = task.vocabulary.index("RotateLeft")
    for _ in range(LABEL_RETRY_STEPS):
        task.step(turn)
        assert task.query_expert() == (0, False)
    assert not asked
    task.step(turn)
    assert task.query_expert() == (0, False) and asked
    source.close()


def test_traversal_success_is_the_goal_rule_not_the_rewards_sign(tmp_path):
    """Under MCS 0.7.4's reward a late success can score <= 0; the task still sees the goal hold (and not before)."""
    goal = {"category": "traversal", "metadata": {"target": {"id": "ball"}}, "last_step": 500}
    (tmp_path / "s.json").write_text(json.dumps(scene(ball(z=1.6), goal=goal)))
    config = {"metadata": "oracle", "width": 64, "height": 64, "reward_mode": "mcs074", "step_penalty": 1.0}
    source = MCSSceneTaskSampler(str(tmp_path), [TargetPointSensor()], max_steps=40, seed=0,
                                 env_factory=lambda: EmbeddedController(config), task_class=TraversalTask)
    task = source.next_task()
    assert not task.goal_achieved(task.env.last_output)  # 1.6 m away: beyond reach of the ball's footprint
    while not task.is_done():
        task.step(task.vocabulary.index("MoveAhead"))
    output = task.env.last_output
    assert output.reward <= 0.0  # 1 - (steps - 1) * 1.0
    assert task.goal_achieved(output) and task.metrics()["success"] == 1.0
    source.close()
