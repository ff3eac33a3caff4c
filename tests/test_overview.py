"""`mcs-plugin tasks`: the goal categories, task classes, action vocabularies and sensors, as the code has them."""

from __future__ import annotations

import json

import pytest

from mcs_plugin import sensors
from mcs_plugin.cli import main
from mcs_plugin.samplers import MCSSceneTaskSampler
from mcs_plugin.tasks import TASK_CLASSES
from tests.sim_scenes import DATA


@pytest.fixture(scope="module")
def listed() -> dict:
    from mcs_plugin.overview import overview

    return overview()


def test_tasks_json_lists_every_goal_task_and_sensor(capsys):
    assert main(["tasks", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["goals"] == {category: cls.__name__ for category, cls in TASK_CLASSES.items()}
    assert set(info["tasks"]) == {cls.__name__ for cls in TASK_CLASSES.values()}
    for cls in TASK_CLASSES.values():
        assert len(info["tasks"][cls.__name__]["actions"]) == cls.action_count()
    assert set(info["sensors"]) == set(sensors.__all__)
    assert info["sensors"]["RGBSensor"]["uuid"] == "rgb" and "(64, 64, 3)" in info["sensors"]["RGBSensor"]["space"]


@pytest.mark.parametrize("category", ["retrieval", "intuitive physics"])
def test_listed_actions_are_those_a_real_task_reports(category, listed):
    """The labels equal class_action_names() of a task made by the sampler from a real scene."""
    sampler = MCSSceneTaskSampler(DATA / "scenes", [], mode="valid", goal_categories=[category],
                                  env_args={"config": {"render": False}})
    task = sampler.next_task()
    try:
        assert list(task.class_action_names()) == listed["tasks"][type(task).__name__]["actions"]
    finally:
        sampler.close()


def test_tasks_text_names_each_category_and_action(capsys):
    assert main(["tasks"]) == 0
    text = capsys.readouterr().out
    for category, cls in TASK_CLASSES.items():
        assert category in text and cls.__name__ in text
    assert "5:PickupObject@0.50,0.50" in text and "0:Continue" in text and "TargetColorSensor" in text
