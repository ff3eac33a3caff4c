"""Goal achievement and reward per goal category (seed 000: 1 on success; MCS 0.7.4 formula on request)."""

from __future__ import annotations

import numpy as np

from mcs_plugin.mcs import GoalCategory, GoalMetadata
from mcs_plugin.sim.performer import PERFORMER_REACH, Performer
from mcs_plugin.sim.world import World

NEXT_TO_DISTANCE = 0.1  # transferral next_to: footprints at most this far apart (MCS <= 0.5)
RETRIEVAL_CATEGORIES = {GoalCategory.RETRIEVAL, GoalCategory.MULTI_RETRIEVAL, GoalCategory.IMITATION}


def _footprint(world: World, obj) -> tuple[np.ndarray, np.ndarray]:
    corners = world.world_bounds(obj)
    return corners[:, :2].min(axis=0), corners[:, :2].max(axis=0)


def _gap(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> float:
    """Distance between two axis-aligned XZ footprints (0 when they overlap)."""
    d = np.maximum(0.0, np.maximum(a[0] - b[1], b[0] - a[1]))
    return float(np.linalg.norm(d))


def _target(world: World, metadata: dict, key: str):
    entry = metadata.get(key) or {}
    return world.by_id.get(entry.get("id", "")) if isinstance(entry, dict) else None


def goal_achieved(goal: GoalMetadata | None, world: World, performer: Performer) -> bool:
    """Whether the scene's goal holds now."""
    if goal is None or not goal.category:
        return False
    category, metadata = goal.category, goal.metadata or {}
    if category in RETRIEVAL_CATEGORIES:
        ids = goal.target_ids()
        if not ids:
            return False
        needed = int(metadata.get("pickup_number") or len(ids))
        picked = sum(1 for i in ids if i in world.by_id and world.by_id[i].was_picked_up)
        return picked >= needed
    if category == GoalCategory.TRAVERSAL:
        target = _target(world, metadata, "target")
        if target is None:
            return False
        low, high = _footprint(world, target)
        point = np.array([performer.x, performer.z])
        return _gap((point, point), (low, high)) <= PERFORMER_REACH
    if category == GoalCategory.TRANSFERRAL:
        first, second = _target(world, metadata, "target_1"), _target(world, metadata, "target_2")
        relationship = metadata.get("relationship") or []
        if first is None or second is None or first.held or len(relationship) < 2:
            return False
        gap = _gap(_footprint(world, first), _footprint(world, second))
        kind = str(relationship[1]).replace(" ", "_")  # scenes write both "on_top_of" and "on top of"
        if kind == "next_to":
            return gap <= NEXT_TO_DISTANCE
        if kind == "on_top_of":
            first_bottom = world.world_bounds(first)[:, 2].min()
            second_top = world.world_bounds(second)[:, 2].max()
            return gap == 0.0 and first_bottom >= second_top - 0.05
    return False


def step_reward(mode: str, achieved: bool, step: int, steps_on_lava: int, goal_reward: float, step_penalty: float, lava_penalty: float) -> float:
    """The reward for a step: seed 000 (1 on success, else 0) or the MCS 0.7.4 formula."""
    if mode == "mcs074":
        if achieved:
            return goal_reward - (step - 1) * step_penalty
        return 0.0 - step * step_penalty - steps_on_lava * lava_penalty
    return float(goal_reward) if achieved else 0.0
