"""Goal achievement and reward per goal category (seed 000: 1 on success; MCS 0.7.4 formula on request)."""

from __future__ import annotations

from mcs_plugin.mcs import GoalCategory, GoalMetadata
from mcs_plugin.mcs.goals import (
    RETRIEVAL_CATEGORIES, Extent, relation_name, retrieval_achieved, transferral_holds, transferral_ids, traversal_holds,
    traversal_id,
)
from mcs_plugin.sim.performer import Performer
from mcs_plugin.sim.world import World


def _extent(world: World, obj) -> Extent:
    corners = world.world_bounds(obj)  # MuJoCo frame: x, z (MCS), y (MCS) per corner
    return Extent.of_corners((c[0], c[2], c[1]) for c in corners)


def goal_achieved(goal: GoalMetadata | None, world: World, performer: Performer) -> bool:
    """Whether the scene's goal holds now (the rules of `mcs_plugin.mcs.goals`)."""
    if goal is None or not goal.category:
        return False
    category, metadata = goal.category, goal.metadata or {}
    if category in RETRIEVAL_CATEGORIES:
        return retrieval_achieved(goal, (i for i, obj in world.by_id.items() if obj.was_picked_up))
    if category == GoalCategory.TRAVERSAL:
        target = world.by_id.get(traversal_id(goal) or "")
        return target is not None and traversal_holds(performer.x, performer.z, _extent(world, target))
    if category == GoalCategory.TRANSFERRAL:
        first_id, second_id = transferral_ids(goal)
        first, second = world.by_id.get(first_id or ""), world.by_id.get(second_id or "")
        if first is None or second is None or first.held:
            return False
        return transferral_holds(relation_name(metadata.get("relationship")), _extent(world, first),
                                 _extent(world, second))
    return False


def step_reward(mode: str, achieved: bool, step: int, steps_on_lava: int, goal_reward: float, step_penalty: float, lava_penalty: float) -> float:
    """The reward for a step: seed 000 (1 on success, else 0) or the MCS 0.7.4 formula."""
    if mode == "mcs074":
        if achieved:
            return goal_reward - (step - 1) * step_penalty
        return 0.0 - step * step_penalty - steps_on_lava * lava_penalty
    return float(goal_reward) if achieved else 0.0
