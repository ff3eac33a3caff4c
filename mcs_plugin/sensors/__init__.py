"""Sensors for MCS tasks: what a policy observes (vision, goal, body), each with its gym space."""

from mcs_plugin.sensors.body import HapticSensor, PoseSensor
from mcs_plugin.sensors.goal import GoalCategorySensor, GoalImageSensor, TargetColorSensor
from mcs_plugin.sensors.target import TargetPointSensor
from mcs_plugin.sensors.vision import DepthSensor, InstanceMaskSensor, RGBSensor

__all__ = [
    "DepthSensor", "GoalCategorySensor", "GoalImageSensor", "HapticSensor", "InstanceMaskSensor", "PoseSensor",
    "RGBSensor", "TargetColorSensor", "TargetPointSensor",
]
