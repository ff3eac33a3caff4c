"""Simulation agents (MCS ``agent_*`` objects): scripted walks, animations, and InteractWithAgent.

What MCS 0.7.4 does, as measured on its recorded outputs, and what this module reproduces:

- An agent holds the object whose ``associatedWithAgent`` names it: the object is out of the world (not seen, not
  touched) and reported at the agent's position, turning with it (``simulation_agent_held_object``,
  ``simulation_agent_is_holding_held_object``).
- ``agentMovement``: the agent walks to each ``endPoint`` in turn (``repeat``: again and again). Before each leg it
  turns to face the point (a step either turns or walks; the first turn comes the step after ``stepBegin``). Turns
  are Unity's slerp by clamp(500 / D, 5, 10) / 25 of the turn per step (D: the two yaws' difference as eulerAngles),
  set to the target once 85 % done. Unity walks in float32: each step faces the normalized
  float32 direction to the point, moves WALK_STEP, and snaps onto the point within WALK_STEP on both axes; so
  turning back after a leg is a hair under or over half a turn and the slerp takes the shorter way; only an
  exact half turn goes the way that does not cross yaw 0. Points where the agent stands are skipped.
  It waits while the performer or any collider but the floor (structures too) is in its way.
- ``actions``: a non-loop animation holds a walking agent in place from its stepBegin to its stepEnd, or for its
  clip (CLIP_HOLD_STEPS) when it has none. Only one with stepEnd makes the agent busy (AGENT_IS_BUSY);
  one without is interrupted by InteractWithAgent.
- InteractWithAgent (in reach, seen): the agent turns to face the performer, by the same slerp snapped to face it
  the step after it is 75 % done (at once up to 15 degrees). An agent holding its object
  then holds it out: three steps of a hand animation (OFFER_FRAMES, not visible yet), then in front of it where it
  can be seen and picked up, still facing the performer, until it is taken. One with
  nothing to give faces the performer for STARE_STEPS steps, following it but on the last.
  After that, or two steps after its object was taken, it plays the rest of an animation the interaction
  interrupted, or in full a step late one whose stepBegin came during it, then turns back to its
  walk. One that does not walk stays facing the performer, unless it had played an animation with
  stepEnd: then it turns back to where it faced and plays that again, busy. Asking an agent that is
  turning to the performer, offering or staring gives AGENT_CURRENTLY_INTERACTING_WITH_PERFORMER.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import mujoco
import numpy as np

from mcs_plugin.geometry import angle_difference
from mcs_plugin.sim.catalog import agent_capsule
from mcs_plugin.sim.coords import unity_euler_to_mj_matrix
from mcs_plugin.sim.world import SimObject, World, yaw_of

WALK_STEP = 0.04  # metres per step
# Unity turns an agent by Quaternion.Slerp from its yaw to the target, by clamp(500 / D, 5, 10) / 25 of the turn per
# step (25 animation frames per second), D the difference of the two yaws as eulerAngles (0-360, not wrapped):
# small turns in 2.5 steps, large ones in 5, in between 20 degrees per step.
TURN_SPEED_RATIO = 500.0
TURN_SPEED_MIN, TURN_SPEED_MAX = 5.0, 10.0
ANIMATION_FRAME_RATE = 25.0
WALK_TURN_SNAP = 0.85  # a turn toward the walk is set to its target once this much of it is done
FACE_TURN_SNAP = 0.75  # ... a turn to face the performer, or back after facing it, once this much
ARRIVED = 0.05  # a walk point this close is where the agent already is
UNITY_NORMALIZE_EPSILON = 1e-5  # Vector3.Normalize returns zero below this magnitude (Unity's Vector3.kEpsilon)
PERFORMER_BLOCKS = 0.37  # an agent does not step closer than this to the performer's axis (its capsule's
# radius plus the performer's 0.221)
# What reaches no higher than this over an agent's feet is under it, not in its way: the surface it stands on (the
# generator stands agents on a turntable's top, whose height ours matches to a few millimetres)
AGENT_FOOTING = 0.01
PERFORMER_WAIT = 9  # an agent the performer is in the way of stands still this many steps, then takes a step
# whatever
# Steps a non-loop animation without stepEnd holds the agent in place: its clip's frames at one frame per step, plus
# the step its end is noticed (TPM_jump holds a walk 13 steps; TPM_wave, TPF_wave, from the
# rest of the clip played after an interaction). Clips not measured are taken to be as long as the jump.
CLIP_HOLD_STEPS = {"tpm_wave": 18, "tpf_wave": 11, "jump": 13}
DEFAULT_CLIP_HOLD_STEPS = 13
STARE_STEPS = 5  # an agent with nothing to give faces the performer this many steps (Unity's 5-frame sad clip;
#)
ANIMATED_TURN_MIN = 15.0  # Unity turns an agent back at once, without a turning clip, up to this many degrees
# The hand animation that holds an object out, per step from the step the agent faces the performer: metres
# (ahead of the agent, to its right, above its feet), then where the object stays.
OFFER_FRAMES = ((-0.093, 0.0035, 0.846), (0.0745, 0.077, 0.883), (0.113, 0.0185, 0.849))
OFFER_POSE = (0.114, 0.0, 0.671)


def _angle_to(yaw: float, target: float) -> float:
    """Signed shortest turn (degrees) from yaw to target; an exact half turn goes without crossing yaw 0."""
    delta = angle_difference(target, yaw)
    if abs(abs(delta) - 180.0) < 1e-9:
        delta = 180.0 if target % 360.0 > yaw % 360.0 else -180.0
    return delta


def _unity_direction(from_xz: tuple[float, float], to_xz: tuple[float, float]) -> np.ndarray | None:
    """Unity's `(to - from).normalized` on float32 positions (None where Unity's zero vector comes out): the walk's
    float noise decides which way an exact half turn goes."""
    delta = np.array(to_xz, np.float32) - np.array(from_xz, np.float32)
    magnitude = np.float32(math.sqrt(float(delta[0] * delta[0] + delta[1] * delta[1])))
    return delta / magnitude if magnitude > UNITY_NORMALIZE_EPSILON else None


def _yaw_of_direction(direction: np.ndarray) -> float:
    """Yaw (degrees) of Quaternion.LookRotation of a horizontal direction."""
    return math.degrees(math.atan2(float(direction[0]), float(direction[1]))) % 360.0


def _unity_stride(pos_xz: np.ndarray, point_xz: tuple[float, float]) -> tuple[np.ndarray, float | None, bool]:
    """One MoveSimAgent step in float32 as Unity: (new x z, yaw of the step or None, arrived). The agent moves
    WALK_STEP toward the point, then snaps onto it when within WALK_STEP on both axes."""
    point = np.array(point_xz, np.float32)
    direction = _unity_direction(pos_xz, point_xz)
    new = np.array(pos_xz, np.float32)
    if direction is not None:
        new = new + direction * np.float32(WALK_STEP)
    arrived = bool(np.all(np.abs(new - point) <= np.float32(WALK_STEP)))
    return (point if arrived else new), (None if direction is None else _yaw_of_direction(direction)), arrived


def _actions(agent: SimObject) -> list:
    return list((agent.scene_object.actions if agent.scene_object is not None else None) or [])


def _ended_clips(agent: SimObject) -> list:
    """The agent's non-loop animations that have a stepEnd."""
    return [action for action in _actions(agent) if not action.is_loop_animation and action.step_end is not None]


def _open_clips(agent: SimObject) -> list:
    """The agent's non-loop animations without stepEnd (they end with their clip)."""
    return [action for action in _actions(agent) if not action.is_loop_animation and action.step_end is None]


def _clip_hold_steps(action) -> int:
    """Steps a non-loop animation without stepEnd holds the agent in place."""
    name = action.id.lower()
    return next((n for key, n in CLIP_HOLD_STEPS.items() if key in name), DEFAULT_CLIP_HOLD_STEPS)


def _turn_rate(yaw: float, target: float, snap_at: float, then_face: bool = False) -> tuple[float, float]:
    """(degrees per step, finish-at-once factor for `_turn`) of Unity's slerp turn from yaw to target, set to the
    target on the step it is `snap_at` done (`then_face`: the step after, when Unity's LookAt takes over)."""
    angle = abs(_angle_to(yaw, target))
    raw = abs(target % 360.0 - yaw % 360.0)
    speed = min(max(TURN_SPEED_RATIO / raw, TURN_SPEED_MIN), TURN_SPEED_MAX) if raw > 0 else TURN_SPEED_MAX
    fraction = speed / ANIMATION_FRAME_RATE
    steps = math.ceil(snap_at / fraction - 1e-9)
    finish = 1.0 / fraction - steps + (0.0 if then_face else 1.0)
    return max(angle * fraction, 1e-6), max(finish, 0.0)


@dataclass
class AgentState:
    """What one simulation agent is doing."""

    obj: SimObject
    points: list[tuple[float, float]] = field(default_factory=list)
    repeat: bool = False
    walk_begin: int = 0
    scene_begin: int = -1  # the walk's stepBegin
    point: int = 0  # index of the walk point it is heading to
    walk_done: bool = True
    turn_rate: float | None = None  # degrees per step of the turn under way
    turn_snap: float = 1.0  # the turn finishes at once when no more than this many steps of it are left
    held: SimObject | None = None
    held_yaw: float = 0.0  # the held object's yaw relative to the agent's
    holding: bool = False
    mode: str = ""  # "", "turning", "offering", "sad", "given", "holding", "returning", "replaying"
    mode_since: int = 0  # step the current mode began
    mode_until: int = 0  # last step of a sad stare, of the pause after giving, of a hold or of a replay
    interaction_began: int = -1  # step of the last InteractWithAgent that succeeded
    held_over: int = 0  # steps of an interrupted animation still to play after the interaction
    resume_yaw: float | None = None
    leg_started: bool = False  # it has walked toward its current point
    wait_until: int = -10  # last step of a wait for the performer to get out of the way


class Agents:
    """All simulation agents of a world."""

    def __init__(self, world: World):
        self.world = world
        self.states: dict[str, AgentState] = {}
        self._step = 0
        for obj in world.objects:
            if obj.is_agent:
                self.states[obj.id] = self._state(obj)
        for obj in world.objects:
            owner = obj.associated_with_agent
            if owner in self.states and obj.dynamic and self.states[owner].held is None:
                state = self.states[owner]
                state.held, state.holding = obj, True
                state.held_yaw = yaw_of(world.body_mat(obj)) - yaw_of(world.body_mat(state.obj))
                obj.held_by_agent = owner
                world.set_present(obj, False)
        self.place_held()

    def _state(self, obj: SimObject) -> AgentState:
        state = AgentState(obj)
        movement = obj.scene_object.agent_movement if obj.scene_object is not None else None
        if movement is not None and movement.sequence:
            state.points = [(s.end_point.x, s.end_point.z) for s in movement.sequence]
            state.repeat = bool(movement.repeat)
            state.walk_begin = max(int(movement.step_begin), 1)
            state.scene_begin = int(movement.step_begin)
            state.walk_done = False
        return state

    # -- queries ---------------------------------------------------------------------------------------
    def busy(self, agent: SimObject, step: int) -> bool:
        """Whether the agent is busy at `step` (AGENT_IS_BUSY): playing a non-loop animation that has a stepEnd
        (one without stepEnd is interrupted by an interaction), or turning back to replay
        one after an interaction."""
        state = self.states.get(agent.id)
        if state is not None and state.mode in ("returning", "replaying"):
            return True
        return any(action.step_begin <= step <= action.step_end for action in _ended_clips(agent))

    def _held_in_place(self, agent: SimObject, step: int) -> bool:
        """Whether a non-loop animation keeps a walking agent in place at `step`."""
        return self.busy(agent, step) or any(
            action.step_begin <= step < action.step_begin + _clip_hold_steps(action) for action in _open_clips(agent))

    def _animating(self, state: AgentState, step: int) -> bool:
        """Whether a loop animation with an end, started after the walk, stands in for walking."""
        for action in _actions(state.obj):
            if (action.is_loop_animation and action.step_end is not None and action.step_begin > state.scene_begin
                    and action.step_begin <= step < action.step_end):
                return True
        return False

    def _animation_ends(self, state: AgentState, step: int) -> bool:
        return any(action.is_loop_animation and action.step_end == step and action.step_begin > state.scene_begin
                   for action in _actions(state.obj))

    def interacting(self, agent: SimObject) -> bool:
        """Whether the agent is turning to, offering to or staring at the performer."""
        state = self.states.get(agent.id)
        return state is not None and state.mode in ("turning", "offering", "sad")

    def metadata(self, obj: SimObject) -> tuple[str, bool]:
        """(simulation_agent_held_object, simulation_agent_is_holding_held_object) of an object."""
        state = self.states.get(obj.id)
        if state is None or state.held is None:
            return "", False
        return state.held.id, state.holding

    # -- events ----------------------------------------------------------------------------------------
    def interact(self, agent: SimObject, performer_xz: tuple[float, float]) -> None:
        """InteractWithAgent succeeded: start turning to face the performer (this step)."""
        state = self.states[agent.id]
        yaw = yaw_of(self.world.body_mat(agent))
        if state.mode not in ("returning", "replaying"):
            state.resume_yaw = yaw
        # An animation without stepEnd that the interaction interrupts plays its rest afterwards.
        state.held_over = max([state.held_over] + [action.step_begin + _clip_hold_steps(action) - self._step
                                                   for action in _open_clips(agent)
                                                   if action.step_begin <= self._step])
        state.mode, state.mode_since, state.interaction_began = "turning", self._step, self._step
        facing = self._facing(agent, performer_xz)
        if abs(_angle_to(yaw, facing)) <= ANIMATED_TURN_MIN:  # no turning clip: faces the performer at once
            state.turn_rate, state.turn_snap = None, 1.0
        else:
            state.turn_rate, state.turn_snap = _turn_rate(yaw, facing, FACE_TURN_SNAP, then_face=True)

    def picked_up(self, obj: SimObject) -> None:
        """The performer took an agent's object: the agent turns back two steps later."""
        owner = obj.held_by_agent
        state = self.states.get(owner)
        if state is not None and state.held is obj:
            state.holding = False
            obj.held_by_agent = ""
            self.world.set_frozen(obj, False)
            if state.mode == "offering":
                state.mode, state.mode_since, state.mode_until = "given", self._step, self._step + 1

    def begin_step(self, step: int) -> None:
        """The step being run (before the performer's action)."""
        self._step = step

    # -- per step ----------------------------------------------------------------------------------------
    def step(self, step: int, performer_xz: tuple[float, float]) -> None:
        """Advance every agent by one step (after the performer's action, before physics)."""
        self._step = step
        for state in self.states.values():
            agent = state.obj
            if not agent.present:
                continue
            if state.mode in ("given", "holding", "replaying") and step > state.mode_until:
                self._end_interaction(state, step)
            if state.mode:
                self._interaction_step(state, step, performer_xz)
            elif self._held_in_place(agent, step) or self._animating(state, step):
                state.turn_rate = None  # a turn held up starts over afterwards
            elif not state.walk_done and step >= state.walk_begin:
                self._walk_step(state, step, performer_xz)
        if self.states:
            mujoco.mj_kinematics(self.world.model, self.world.data)  # agents' new poses, for their objects
        self.place_held()

    def _interaction_step(self, state: AgentState, step: int, performer_xz: tuple[float, float]) -> None:
        agent = state.obj
        if state.mode == "turning":
            if self._turn(state, self._facing(agent, performer_xz)):
                state.mode_since = step
                if state.holding:
                    state.mode = "offering"
                else:
                    state.mode, state.mode_until = "sad", step + STARE_STEPS - 1
        elif state.mode == "offering" or (state.mode == "sad" and step < state.mode_until):
            state.turn_rate = None  # keeps facing the performer
            self._turn(state, self._facing(agent, performer_xz))
        elif state.mode == "sad":  # its last step ends it; the agent is busy turning back from the next
            self._end_interaction(state, step)
        elif state.mode == "returning" and self._turn(state, self._resume_target(state)):
            self._after_return(state, step)

    def _end_interaction(self, state: AgentState, step: int) -> None:
        """After the stare or the pause after giving: play the rest of an interrupted animation (and one whose
        stepBegin came during the interaction, from its start, a step late), then turn back to the walk;
        an agent that does not walk turns back only to replay an animation with stepEnd, else it stays
        facing the performer."""
        if state.mode in ("sad", "given"):
            state.held_over += sum(_clip_hold_steps(action) + 1 for action in _open_clips(state.obj)
                                   if state.interaction_began < action.step_begin <= step)
        if state.mode in ("sad", "given") and state.held_over > 0:  # a stare ends with its last step: hold after it
            last = step + state.held_over - (0 if state.mode == "sad" else 1)
            state.mode, state.mode_until, state.held_over = "holding", last, 0
        elif state.mode == "replaying" or (state.mode != "returning" and not self._walks(state)
                                           and self._replayed_clip(state) is None):
            state.mode, state.turn_rate = "", None
        elif state.mode != "returning":
            self._start_return(state)
            if self._turns_back_at_once(state):  # no turning clip: at once
                state.turn_rate = None
                self._turn(state, self._resume_target(state))
                self._after_return(state, step)

    def _after_return(self, state: AgentState, step: int) -> None:
        """Facing its walk (or where it faced) again: replay an animation with stepEnd, busy."""
        state.turn_rate = None
        clip = None if self._walks(state) else self._replayed_clip(state)
        if clip is None:
            state.mode = ""
        else:
            state.mode, state.mode_until = "replaying", step + clip.step_end - clip.step_begin

    def _walks(self, state: AgentState) -> bool:
        return not state.walk_done and bool(state.points)

    def _replayed_clip(self, state: AgentState):
        """The last non-loop animation with stepEnd begun before the interaction, which the agent plays again."""
        begun = [action for action in _ended_clips(state.obj) if action.step_begin < state.interaction_began]
        return max(begun, key=lambda action: action.step_begin) if begun else None

    def _turns_back_at_once(self, state: AgentState) -> bool:
        yaw = yaw_of(self.world.body_mat(state.obj))
        return abs(_angle_to(yaw, self._resume_target(state))) <= ANIMATED_TURN_MIN

    def _resume_target(self, state: AgentState) -> float:
        if self._walks(state):
            return self._facing(state.obj, state.points[state.point])
        yaw = yaw_of(self.world.body_mat(state.obj))
        return state.resume_yaw if state.resume_yaw is not None else yaw

    def _start_return(self, state: AgentState) -> None:
        yaw = yaw_of(self.world.body_mat(state.obj))
        snap_at = WALK_TURN_SNAP if self._walks(state) else FACE_TURN_SNAP
        state.mode = "returning"
        state.turn_rate, state.turn_snap = _turn_rate(yaw, self._resume_target(state), snap_at)

    def _walk_step(self, state: AgentState, step: int, performer_xz: tuple[float, float]) -> None:
        agent = state.obj
        pos = self.world.body_pos(agent)
        for _ in range(len(state.points) + 1):
            tx, tz = state.points[state.point]
            if state.leg_started or math.hypot(tx - pos[0], tz - pos[1]) > ARRIVED:
                break
            if not self._next_point(state):
                return
        else:  # every point is where the agent stands: nowhere to go
            state.walk_done = True
            return
        target = self._facing(agent, (tx, tz))
        yaw = yaw_of(self.world.body_mat(agent))
        angle = abs(_angle_to(yaw, target))
        if angle > 0.5:
            if state.turn_rate is None:
                if step == state.scene_begin:  # the first turn starts the step after stepBegin
                    return
                state.turn_rate, state.turn_snap = _turn_rate(yaw, target, WALK_TURN_SNAP)
            self._turn(state, target)
            return
        state.turn_rate = None
        # A loop animation that held the walk up ends with a double stride.
        new, step_yaw, arrived = pos[:2], None, False
        for _ in range(2 if self._animation_ends(state, step) else 1):
            new, stride_yaw, arrived = _unity_stride(new, (tx, tz))
            step_yaw = stride_yaw if step_yaw is None else step_yaw
            if arrived:
                break
        if step <= state.wait_until:
            return
        if self._blocked(state, new, None if step == state.wait_until + 1 else performer_xz):
            if step != state.wait_until + 1:
                state.wait_until = step + PERFORMER_WAIT - 1
            return
        mat = self.world.body_mat(agent).copy() if step_yaw is None else unity_euler_to_mj_matrix(0.0, step_yaw, 0.0)
        self.world.set_pose(agent, np.array([new[0], new[1], pos[2]], dtype=float), mat)
        state.leg_started = True
        if arrived:
            self._next_point(state)

    def _blocked(self, state: AgentState, new: np.ndarray, performer_xz: tuple[float, float] | None) -> bool:
        """Whether the performer (unless None) or an object is in the way of a step to `new` (x, z): an object is when
        it would overlap the agent's capsule there (MCSSimulationAgent.Update's OverlapCapsule one step ahead, which
        every collider but the floor's stops: structures such as walls and platforms too)."""
        if performer_xz is not None and math.hypot(new[0] - performer_xz[0], new[1] - performer_xz[1]) < PERFORMER_BLOCKS:
            return True
        world = self.world
        radius, height = agent_capsule(state.obj.size[0], state.obj.size[1])
        feet = float(world.body_pos(state.obj)[2])
        low, high = feet + AGENT_FOOTING + radius, feet + height - radius
        for obj in world.objects:
            if (obj is state.obj or obj is state.held or not obj.present or obj.is_floor or obj.held
                    or not obj.geom_ids):
                continue
            centre = world.body_pos(obj)
            if math.hypot(centre[0] - new[0], centre[1] - new[1]) > radius + math.hypot(obj.size[0], obj.size[2]):
                continue
            geoms = world.solid_geoms(obj)
            if geoms and world.segment_distance(new[0], new[1], low, high, geoms) < radius - 1e-6:
                return True
        return False

    def _next_point(self, state: AgentState) -> bool:
        """Head for the next walk point; False (walk over) after the last one without repeat."""
        state.turn_rate = None
        state.leg_started = False
        state.point += 1
        if state.point >= len(state.points):
            if not state.repeat:
                state.walk_done = True
                state.point = len(state.points) - 1
                return False
            state.point = 0
        return True

    def _turn(self, state: AgentState, target: float) -> bool:
        """Turn the agent toward a yaw by its turn rate; True when it faces it."""
        agent = state.obj
        yaw = yaw_of(self.world.body_mat(agent))
        delta = _angle_to(yaw, target)
        rate = state.turn_rate if state.turn_rate is not None else abs(delta)
        done = abs(delta) <= rate * state.turn_snap + 1e-3
        new = target if done else yaw + math.copysign(rate, delta)
        self.world.set_pose(agent, self.world.body_pos(agent).copy(), unity_euler_to_mj_matrix(0.0, new % 360.0, 0.0))
        return done

    def _facing(self, agent: SimObject, point_xz: tuple[float, float]) -> float:
        """Yaw that faces a point from the agent, as Unity's LookRotation of the float32 direction."""
        pos = self.world.body_pos(agent)
        direction = _unity_direction((pos[0], pos[1]), point_xz)
        return yaw_of(self.world.body_mat(agent)) if direction is None else _yaw_of_direction(direction)

    def place_held(self) -> None:
        """Put each agent's object where MCS reports it: at the agent, in its hand animation, or held out."""
        for state in self.states.values():
            obj = state.obj
            held = state.held
            if held is None or not state.holding:
                continue
            agent_pos = self.world.body_pos(obj)
            yaw = yaw_of(self.world.body_mat(obj))
            mat = unity_euler_to_mj_matrix(0.0, (yaw + state.held_yaw) % 360.0, 0.0)
            if state.mode == "offering":
                frame = self._step - state.mode_since
                ahead, right, up = OFFER_FRAMES[frame] if frame < len(OFFER_FRAMES) else OFFER_POSE
                rad = math.radians(yaw)
                forward = np.array([math.sin(rad), math.cos(rad)])
                side = np.array([math.cos(rad), -math.sin(rad)])
                xz = agent_pos[:2] + forward * ahead + side * right
                pos = np.array([xz[0], xz[1], agent_pos[2] + up])
                shown = frame >= len(OFFER_FRAMES)
                if shown and not held.present:  # held out, kinematic in the agent's hand, until taken
                    self.world.set_frozen(held, True)
                    self.world.set_present(held, True)
            else:
                pos = agent_pos.copy()
            self.world.set_pose(held, pos, mat)
