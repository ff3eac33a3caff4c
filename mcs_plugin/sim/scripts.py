"""Per-step scripted scene events (the scene objects' step lists), applied after the performer's action and before the step's physics,
as the MCS Unity app does (MCSMain.UpdateGameObjectOnStep, then Physics.Simulate):

- ``shows``: the first entry places the object (at its stepBegin, 0 = at Initialize); later entries re-pose it.
- ``moves`` / ``rotates``: add the whole vector every step in [stepBegin, stepEnd] (inclusive); by default in the
  object's own axes (Unity Transform.Translate/Rotate), in world axes with ``globalSpace``. With ``repeat`` the
  range comes back every (stepEnd - stepBegin + stepWait) steps (1-6 then 13-18 for stepWait 7).
- ``forces`` / ``torques``: Unity AddForce / AddTorque once per step in range: the body's velocity changes by
  F * 0.01 s / m (one 0.01 s physics step) or F / m with ``impulse``; ``relative`` = in the object's axes.
- ``teleports`` (position, optional rotation), ``hides`` (gone until a later show), ``shrouds`` (not drawn, not seen, still
  physical), ``ghosts`` (collide with nothing and hold still; an object with ghosts is physical whenever it is not a
  ghost), ``togglePhysics`` (kinematic <-> physical), ``openClose``, ``changeMaterials`` (colours), ``lidAttachment``
  (a lid snaps onto its container).
- ``triggeredBy`` objects (interactive imitation): their scripts other than ``shows`` wait until the containers of
  the goal's ``triggeredByTargetSequence`` have been opened in order, and then run with steps counted from the
  step the sequence was completed (chest_3 opened at step 15, moves 0-7 run at 15-22, changeMaterials 8 at
  23). Opening another container sets ``triggered_by_sequence_incorrect``; EndHabituation starts the sequence
  afresh and puts the triggered objects' materials and physics back as they were (step 30).
"""

from __future__ import annotations

import numpy as np

from mcs_plugin.sim.coords import mcs_to_mj, unity_euler_to_mj_matrix
from mcs_plugin.sim.build import reported_colors
from mcs_plugin.sim.materials import material_rgb
from mcs_plugin.sim.world import (
    PHYSICS_TIMESTEP,
    SUBSTEPS_PER_ACTION,
    UNITY_PHYSICS_STEP,
    SimObject,
    World,
)

ACTION_SECONDS = SUBSTEPS_PER_ACTION * PHYSICS_TIMESTEP  # simulated time of one action (MCS: 5 x 0.01 s)


def in_range(step: int, begin: int, end: int | None, repeat: bool = False, wait: int = 0) -> bool:
    """Whether `step` lies in a scripted [begin, end] range (end None = begin), repeating when asked."""
    end = begin if end is None or end < begin else end
    if step < begin:
        return False
    if not repeat:
        return step <= end
    period = max(end - begin + max(int(wait), 0), 1)
    return (step - begin) % period <= end - begin


_SCRIPT_KEYS = ("moves", "rotates", "forces", "torques", "teleports", "hides", "shrouds", "ghosts", "toggle_physics",
                "open_close", "change_materials")


def _has_scripts(spec, step: int) -> bool:
    """Whether an object has anything scripted at all (most have nothing after their first show)."""
    cached = getattr(spec, "_mcs_has_scripts", None)
    if cached is None:
        cached = len(spec.shows) > 1 or spec.shows[0].step_begin > 0 or spec.lid_attachment is not None or any(
            getattr(spec, key, None) for key in _SCRIPT_KEYS)
        object.__setattr__(spec, "_mcs_has_scripts", cached)
    return cached


def _swap(vector) -> np.ndarray:
    return mcs_to_mj(vector.x, vector.y, vector.z)


class TriggerSequence:
    """The goal's triggeredByTargetSequence: containers to open in order before `triggeredBy` objects act."""

    def __init__(self, world: World, order: list[str] | None):
        self.order = list(order or [])
        self.opened = 0  # how many containers of the sequence have been opened in order
        self.completed_at: int | None = None  # the step the sequence was completed at
        self.incorrect = False  # a container was opened out of order (MCS triggered_by_sequence_incorrect)
        triggered = [o for o in world.objects if o.scene_object is not None and o.scene_object.triggered_by]
        self._initial = [(o, o.frozen, list(o.texture_color_list), o.rgb) for o in triggered]

    def container_opened(self, object_id: str, step: int) -> None:
        """Count an opening: the next container of the sequence advances it, any other one breaks it."""
        if not self.order or self.completed_at is not None or self.incorrect:
            return
        if object_id != self.order[self.opened]:
            self.incorrect = True
            return
        self.opened += 1
        if self.opened == len(self.order):
            self.completed_at = step

    def script_step(self, spec, step: int) -> int | None:
        """The step an object's scripts (other than shows) are at: its own clock for a triggeredBy object, which
        only starts once the sequence is complete (None before)."""
        if not spec.triggered_by:
            return step
        return None if self.completed_at is None else step - self.completed_at

    def restart(self, world: World) -> None:
        """A new trial (EndHabituation): the sequence starts afresh, triggered objects are as at the start."""
        self.opened, self.completed_at = 0, None
        for obj, frozen, colors, rgb in self._initial:
            obj.texture_color_list, obj.rgb = list(colors), rgb
            if obj.dynamic and obj.frozen != frozen:
                world.set_frozen(obj, frozen)
            if obj.dynamic:
                world.set_velocity(obj, np.zeros(3), np.zeros(3))


def apply_scripts(world: World, step: int, trigger: TriggerSequence | None = None) -> list[str]:
    """Apply every scripted event of the scene's objects at `step` (call world.forward after).

    Returns the ids of objects whose materials changed (their render colours need refreshing).
    """
    recoloured: list[str] = []
    world.script_moves = []
    if trigger is not None:
        for obj in world.objects:  # scripted openings count before the objects they trigger act
            if obj.openable and obj.scene_object is not None and any(
                    change.step == step and change.open for change in obj.scene_object.open_close or []):
                trigger.container_opened(obj.id, step)
    for obj in world.objects:
        spec = obj.scene_object
        if spec is None or not _has_scripts(spec, step):
            continue
        own_step = trigger.script_step(spec, step) if trigger is not None else step
        if own_step is not None:
            _hides(world, obj, spec, own_step)  # before the shows, as MCSMain.UpdateGameObjectOnStep
        if not obj.held:
            _shows(world, obj, spec, step)
        if own_step is None:
            continue
        if not obj.held and obj.present:
            _motions(world, obj, spec, own_step)
        _flags(world, obj, spec, own_step)
        for change in spec.change_materials or []:
            if change.step_begin == own_step:
                obj.texture_color_list = reported_colors(spec, change.materials)
                if change.materials:
                    obj.rgb = material_rgb(change.materials[0])
                recoloured.append(obj.id)
        if spec.lid_attachment is not None and spec.lid_attachment.step_begin == own_step:
            _attach_lid(world, spec.lid_attachment.lid_attachment_obj_id, obj)
    return recoloured


def _shows(world: World, obj: SimObject, spec, step: int) -> None:
    """Later shows (re-poses), and first shows after the start, at the scene's step."""
    for index, show in enumerate(spec.shows):
        if show.step_begin != step or (index == 0 and step == 0):
            continue
        rotation = show.rotation
        world.set_pose(obj, mcs_to_mj(show.position.x, show.position.y, show.position.z),
                       unity_euler_to_mj_matrix(rotation.x, rotation.y, rotation.z))
        obj.hidden = False  # a show brings back an object a hide took away
        if not obj.present:
            world.set_present(obj, True)


def _hides(world: World, obj: SimObject, spec, step: int) -> None:
    """`hides` at a step: the object is taken out of the scene (not drawn, seen, touched or listed) until a later
    show puts it back."""
    if obj.held:
        return
    for hide in spec.hides or []:
        if hide.step_begin == step:
            obj.hidden = True
            world.set_present(obj, False)


def _motions(world: World, obj: SimObject, spec, step: int) -> None:
    """Teleports, moves, rotates, forces and torques at a step of the object's scripts."""
    for teleport in spec.teleports or []:
        if teleport.step_begin == step:
            mat = None
            if teleport.rotation is not None:
                r = teleport.rotation
                mat = unity_euler_to_mj_matrix(r.x, r.y, r.z)
            world.set_pose(obj, _swap(teleport.position), mat)
    offset = _move_offset(world, obj, spec, step)
    changed = offset is not None
    offset = np.zeros(3) if offset is None else offset
    turn = np.eye(3)
    local_turn = np.eye(3)
    for rotate in spec.rotates or []:
        if in_range(step, rotate.step_begin, rotate.step_end, rotate.repeat, rotate.step_wait):
            v = rotate.vector
            matrix = unity_euler_to_mj_matrix(v.x, v.y, v.z)
            if rotate.global_space:
                turn = matrix @ turn
            else:
                local_turn = local_turn @ matrix
            changed = True
    if changed:
        pos, mat = world.body_pos(obj).copy(), world.body_mat(obj).copy()
        velocity = obj.qvel.copy() if obj.dynamic else None
        kinematic = not obj.dynamic or obj.frozen
        # What rests on a scripted mover (a rotating cog, a moving platform, a turning block) rides along rigidly
        # unless its own `moves` move it this step (a ball lowered in its container by the same
        # moves as the container's would otherwise descend twice as fast).
        riders = [(r, world.body_pos(r).copy(), world.body_mat(r).copy()) for r in world.carried_by(obj)
                  if r.scene_object is None or _move_offset(world, r, r.scene_object, step) is None]
        new_pos, new_mat = pos + offset, turn @ mat @ local_turn
        world.set_pose(obj, new_pos, new_mat)
        if velocity is not None and not obj.frozen:  # a moved physical body keeps its motion
            obj.qvel[:] = velocity
        delta = new_mat @ mat.T
        for rider, rider_pos, rider_mat in riders:
            world.set_pose(rider, new_pos + delta @ (rider_pos - pos), delta @ rider_mat)
        if kinematic:
            world.script_moves.append((obj, pos, mat, new_pos, new_mat))
        world.forward()  # later movers must see this pose (a rider's carrier may move after it)
    if obj.dynamic and not (obj.frozen or obj.ghost):
        _forces(world, obj, spec, step)


def _move_offset(world: World, obj: SimObject, spec, step: int) -> np.ndarray | None:
    """The world offset (MuJoCo frame) that the object's `moves` add at this step, None when none is active."""
    offset = None
    for move in spec.moves or []:
        if in_range(step, move.step_begin, move.step_end, move.repeat, move.step_wait):
            vector = _swap(move.vector)
            offset = (0.0 if offset is None else offset) + (vector if move.global_space else world.body_mat(obj) @ vector)
    return offset


def _forces(world: World, obj: SimObject, spec, step: int) -> None:
    mass = max(float(world.model.body_mass[obj.body_id]), 1e-9)
    mat = world.body_mat(obj)
    for force in spec.forces or []:
        if in_range(step, force.step_begin, force.step_end, force.repeat, force.step_wait):
            vector = _swap(force.vector)
            if force.relative:
                vector = mat @ vector
            duration = 1.0 if force.impulse else UNITY_PHYSICS_STEP
            world.wake()
            obj.qvel[:3] += vector * duration / mass
    for torque in spec.torques or []:
        if in_range(step, torque.step_begin, torque.step_end, torque.repeat, torque.step_wait):
            vector = _swap(torque.vector)
            # Unity's positive torque about y turns clockwise seen from above; in MuJoCo's right-handed frame that
            # is a negative turn about z: the axis-swap flips the handedness of rotations.
            vector = -vector
            local = vector if torque.relative else mat.T @ vector
            inertia = np.maximum(world.model.body_inertia[obj.body_id], 1e-9)
            duration = 1.0 if torque.impulse else UNITY_PHYSICS_STEP
            world.wake()
            obj.qvel[3:] += local * duration / inertia


def _flags(world: World, obj: SimObject, spec, step: int) -> None:
    """Shrouds, physics toggles, ghosts and scripted openings at a step, in MCSMain.UpdateGameObjectOnStep's order."""
    obj.shrouded = any(in_range(step, s.step_begin, s.step_end, s.repeat, s.step_wait) for s in spec.shrouds or [])
    for toggle in spec.toggle_physics or []:
        if toggle.step_begin == step and obj.dynamic:
            _toggle_physics(world, obj, spec, step)
    ghost = any(in_range(step, g.step_begin, g.step_end, g.repeat, g.step_wait) for g in spec.ghosts or [])
    if ghost != obj.ghost:
        world.set_ghost(obj, ghost)
    if spec.ghosts and not ghost and obj.dynamic and obj.frozen and not obj.held:
        world.set_frozen(obj, False)  # an object with ghosts is physical whenever it is not a ghost
    for change in spec.open_close or []:
        if change.step == step and obj.openable:
            world.set_open(obj, bool(change.open))


def _toggle_physics(world: World, obj: SimObject, spec, step: int) -> None:
    """togglePhysics: kinematic <-> physical. An object released while its `moves` run keeps their speed (the
    move's vector per action) on top of the step's move: PhysX keeps a kinematic body's scripted velocity
    (a ball let go during its last 0.1 m move drops 0.22 m in that step, not 0.11 m)."""
    releasing = obj.frozen
    world.set_frozen(obj, not obj.frozen)
    offset = _move_offset(world, obj, spec, step) if releasing else None
    if offset is not None:
        obj.qvel[:3] = offset / ACTION_SECONDS


def _attach_lid(world: World, container_id: str, lid: SimObject) -> None:
    """lidAttachment (on the lid): from now on the lid stays where it is on its container and moves with it
    (MCS parents it; the scene's placer moves have already lowered it into place), and the container
    reports the lid's colours too."""
    container = world.by_id.get(container_id)
    if container is None or lid.held or container.held:
        return
    if not lid.present and not lid.hidden:
        world.set_present(lid, True)
    if lid.dynamic:
        world.set_frozen(lid, True)
    container.attached_lid = lid.id
    lid.attached_to = container.id
    container.is_open = False
    # Unity parents the lid to its container, whose colours then include the lid's.
    own = container.texture_color_list
    container.texture_color_list = own + [c for c in lid.texture_color_list if c not in own]
    world.forward()  # this step's moves may have just lowered the lid (its last move is at the attach step)
    cmat, cpos = world.body_mat(container), world.body_pos(container)
    lid.attach_offset = (cmat.T @ (world.body_pos(lid) - cpos), cmat.T @ world.body_mat(lid))


def carry_attached_lids(world: World) -> None:
    """Keep attached lids on their containers (after the containers moved)."""
    for lid in world.objects:
        if not lid.attached_to or lid.held or lid.attach_offset is None:
            continue
        container = world.by_id.get(lid.attached_to)
        if container is None:
            continue
        rel_pos, rel_mat = lid.attach_offset
        cmat, cpos = world.body_mat(container), world.body_pos(container)
        world.set_pose(lid, cpos + cmat @ rel_pos, cmat @ rel_mat)


def object_states(world: World, object_id: str, step: int) -> list[str]:
    """The scene's `states` entry of an object at a step (MCS state_list)."""
    spec = world.by_id[object_id].scene_object
    states = (spec.states or []) if spec is not None else []
    return list(states[step]) if step < len(states) and states[step] else []
