"""Per-step scripted scene events: late appearances and re-poses (shows), teleports, hides."""

from __future__ import annotations

from mcs_plugin.sim.coords import mcs_to_mj, unity_euler_to_mj_matrix
from mcs_plugin.sim.world import World


def apply_scripts(world: World, step: int) -> None:
    """Apply every scripted event of the scene's objects that starts at `step` (call world.forward after)."""
    for obj in world.objects:
        spec = obj.scene_object
        if spec is None or obj.held:
            continue
        for index, show in enumerate(spec.shows):
            if show.step_begin != step or (index == 0 and step == 0):
                continue
            rotation = show.rotation
            world.set_pose(obj, mcs_to_mj(show.position.x, show.position.y, show.position.z),
                           unity_euler_to_mj_matrix(rotation.x, rotation.y, rotation.z))
            if not obj.present:
                world.set_present(obj, True)
        for teleport in spec.teleports or []:
            if teleport.step_begin == step:
                position = teleport.position
                world.set_pose(obj, mcs_to_mj(position.x, position.y, position.z))
        for hide in spec.hides or []:
            if hide.step_begin == step:
                world.set_present(obj, False)


def object_states(world: World, object_id: str, step: int) -> list[str]:
    """The scene's `states` entry of an object at a step (MCS state_list)."""
    spec = world.by_id[object_id].scene_object
    states = (spec.states or []) if spec is not None else []
    return list(states[step]) if step < len(states) and states[step] else []
