"""The performer: position, yaw, head tilt, pose, camera, and collision-checked movement."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from mcs_plugin.constants import (
    CAPSULE_TOP, CRAWLING, GROUP_PERFORMER, LYING, MAX_CLIMB_DEGREES, MAX_RISE, MAX_TILT, MOVE_DIRECTIONS,
    MOVE_DISTANCE, PERFORMER_RADIUS, PERFORMER_REACH, POSE_BODY_HEIGHT, POSE_CAMERA_HEIGHT, STANDING, SUPPORT_RADIUS,
)
from mcs_plugin.sim.coords import camera_axes_mj, yaw_forward_mj, yaw_right_mj
from mcs_plugin.sim.world import GRAVITY, UNITY_PHYSICS_STEP, SimObject, World

AXIS_LOW, AXIS_HIGH = 0.068, 0.796  # Unity's capsule segment (height 1.23, radius 0.251, centre 0.33 below the camera)
REACH_AXIS_HIGH = AXIS_HIGH + PERFORMER_REACH  # the reach zone's segment: the capsule's upper end raised by the reach
# The body that objects stop (a sphere at its lower end, a cylinder above): radius and height of its bottom over the
# feet, pinned between recorded moves. It is blocked 0.2 m from a box's face but walks past a box's vertical edge
# 0.217 m from its axis (radius between the two); it stops at a 0.5 m ball 0.44 m from its axis but passes 0.2 m from
# the end of a 0.3 m tall tool (with that radius, a bottom between 0.154 and 0.174 m). MCS's own capsule, radius
# 0.251, is what it reports as the performer's radius.
BODY_RADIUS = 0.21
FOOT_CLEARANCE = 0.165  # the body floats this far above the floor: low obstacles only touch its lower sphere
POSE_CLEARANCE = {STANDING: FOOT_CLEARANCE, CRAWLING: 0.1, LYING: 0.02}  # legacy poses keep low bodies low
# MCS carries a performer whose axis is 0.12 or 0.16 m off a rotating cog's collider when the action starts, not 0.20 or
# 0.26 m (boarding and leaving a cog lying flat on the floor).
MOVER_CARRY_RADIUS = 0.18
CLIMB_NORMAL_Z = math.cos(math.radians(MAX_CLIMB_DEGREES))  # surfaces steeper than ~45 degrees cannot be climbed
STRUCTURE_RADIUS = 0.221  # Unity's capsule keeps its axis this far from structures: pushed out of a platform's or a
# hole's side after a fall, stopped 0.2 m from a lip but not 0.236 m
STRUCTURE_AXIS_LOW = 0.225  # ...and that capsule's axis starts this far above the feet (its bottom at the feet): it
# meets a ramp's side from the floor and slides up and off the top end of a ramp (+0.034 m, 0.074 m on)
PERFORMER_MASS = 2.0  # kg: the performer's rigidbody; it shoves lighter objects and weighs on seesaw planks
# N s: every height match on a seesaw plank pushes it down at the sphere cast's hit point with the performer's weight,
# a force that acts for the next Unity physics step (0.01 s)
SEESAW_PUSH = PERFORMER_MASS * GRAVITY * UNITY_PHYSICS_STEP
PUSHABLE_MASS = PERFORMER_MASS  # walking into a lighter non-kinematic object shoves it (a 1.9 kg one is shoved)
# instead of stopping
SHOVE_RADIUS = 0.2  # a shoved object is kept this far (surface) from the body's axis
START_CLEAR_RADIUS = 0.254  # a light object starting inside the body ends with its centre this far from the axis
# (a 0.1 m ball at 0.18 ends at 0.254; a 0.05 m ball at 0.2 must end ahead of the view's lower edge)
SHOVE_SPEED = 0.1  # m/s a shoved object keeps rolling with
TOUCH_TOLERANCE = 1e-3  # the body may touch an object without being stopped (slide along a face), a deeper overlap
# stops it
AGENT_COLLIDER_RADIUS = 0.07  # a simulation agent only stops the performer near its axis (0.39 m apart
# passes, 0.27 m stops), whatever its arms and body look like


def axis_distances(points_mj: np.ndarray, x: float, z: float, low: float, high: float) -> np.ndarray:
    """Distances from points (N, 3; MuJoCo frame) to the vertical segment over (x, z) (MuJoCo x, y) from height `low`
    to `high`: a body's axis."""
    below_or_above = np.maximum(np.maximum(low - points_mj[:, 2], points_mj[:, 2] - high), 0.0)
    return np.hypot(np.hypot(points_mj[:, 0] - x, points_mj[:, 1] - z), below_or_above)


@dataclass
class Performer:
    """Where the performer is and how it looks (MCS units: metres, degrees)."""

    x: float = 0.0
    z: float = 0.0
    floor_y: float = 0.0  # height of the surface the performer stands on
    yaw: float = 0.0
    tilt: float = 0.0  # head tilt, positive = looking down
    pose: str = STANDING
    fixed_camera_y: float | None = None  # passive scenes place the camera at a fixed height
    # seesaw planks this action's height matches stood on, and where (the pushes press_plank applies)
    plank_pushes: list[tuple[SimObject, np.ndarray]] = field(default_factory=list, repr=False)

    @property
    def camera_height(self) -> float:
        """Camera y in the world (= StepMetadata.position.y and camera_height)."""
        if self.fixed_camera_y is not None:
            return self.fixed_camera_y
        return self.floor_y + POSE_CAMERA_HEIGHT[self.pose]

    def camera_mj(self) -> np.ndarray:
        """Camera position in MuJoCo coordinates."""
        return np.array([self.x, self.z, self.camera_height])

    def camera_axes(self) -> tuple[np.ndarray, np.ndarray]:
        """Camera forward and up unit vectors in MuJoCo coordinates."""
        return camera_axes_mj(self.yaw, self.tilt)

    def rotate(self, degrees: float) -> None:
        """Turn the body by `degrees` (positive = clockwise, to the right)."""
        self.yaw = (self.yaw + degrees) % 360.0

    def look(self, degrees: float) -> bool:
        """Tilt the head by `degrees` (positive = down); False (unchanged) beyond +-90."""
        target = self.tilt + degrees
        if abs(target) > MAX_TILT + 1e-9:
            return False
        self.tilt = target
        return True

    def place_capsule(self, world: World, x: float, z: float, pose: str | None = None) -> None:
        """Put the collision body of a pose at (x, z) (MuJoCo data updated for distance queries): a capsule-like
        body of radius BODY_RADIUS (as built), as a sphere at its lower end and a cylinder above it (MuJoCo's capsule-box
        distance is wrong when a box pierces the capsule's axis), floating POSE_CLEARANCE above the floor and
        ending no higher than Unity's capsule (CAPSULE_TOP: one walks under a pole 1.35 m up)."""
        pose = pose or self.pose
        clearance = POSE_CLEARANCE[pose]
        body_height = min(POSE_BODY_HEIGHT[pose], self._top_over_feet(pose) - clearance)
        model, data = world.model, world.data
        radius = float(model.geom_size[world.performer_geom][0])
        length = max(body_height - 2.0 * radius, 0.02)  # from the lower sphere's centre to the top
        low = self.floor_y + clearance + radius
        model.geom_size[world.performer_geom][1] = length / 2.0 + radius / 2.0
        model.geom_rbound[world.performer_geom] = math.hypot(radius, length / 2.0 + radius / 2.0)
        data.geom_xpos[world.performer_geom] = (x, z, low + (length + radius) / 2.0)
        data.geom_xmat[world.performer_geom] = np.eye(3).reshape(-1)
        data.geom_xpos[world.sole_geom] = (x, z, low)
        mocap = model.body_mocapid[world.performer_body]
        data.mocap_pos[mocap] = (x, z, low + (length + radius) / 2.0)

    def _obstacles(self, world: World) -> list[tuple[int, float, np.ndarray]]:
        """Overlaps of the placed capsule that stop it (anything but light objects it can shove)."""
        found = []
        at = world.data.geom_xpos[world.performer_geom][:2]
        for geom, dist, fromto in world.body_contacts():
            owner = world.owner(geom)
            if dist > -TOUCH_TOLERANCE:
                continue
            if owner is not None and self._shovable(owner):
                continue
            if owner is not None and owner.is_agent:
                centre = world.body_pos(owner)[:2]
                if float(np.hypot(*(centre - at))) >= PERFORMER_RADIUS + AGENT_COLLIDER_RADIUS:
                    continue
            found.append((geom, dist, fromto))
        return found

    @staticmethod
    def _shovable(obj) -> bool:
        return (obj.dynamic and obj.moveable and not obj.frozen and not obj.structural and not obj.is_agent
                and obj.mass < PUSHABLE_MASS)

    def blocked_at(self, world: World, x: float, z: float, pose: str | None = None, floor_y: float | None = None) -> bool:
        """Whether the performer's capsule would run into an obstacle at (x, z) in a pose (standing on floor_y)."""
        current = self.floor_y
        if floor_y is not None:
            self.floor_y = floor_y
        self.place_capsule(world, x, z, pose)
        blocked = bool(self._obstacles(world))
        self.floor_y = current
        self.place_capsule(world, self.x, self.z)
        return blocked

    @staticmethod
    def _top_over_feet(pose: str) -> float:
        """How far the top of Unity's capsule is above the feet in a pose (it keeps its place under the camera)."""
        return POSE_CAMERA_HEIGHT[pose] + CAPSULE_TOP - POSE_CAMERA_HEIGHT[STANDING]

    def _body_top(self) -> float:
        """Height of the top of the body (where MCS starts its cast for the structure below)."""
        return self.floor_y + self._top_over_feet(self.pose)

    def standing_height(self, world: World, x: float, z: float, top: float | None = None) -> float:
        """Height of the structure the performer would stand on at (x, z) (its current height if what is below
        is not a structure: MCS only climbs structures)."""
        owner, height = self.support(world, x, z, self._body_top() if top is None else top)
        if owner is None or not (owner.structural or owner.is_floor or owner.seesaw):
            return self.floor_y
        return height

    def support(self, world: World, x: float, z: float, top: float):
        """What the performer would stand on at (x, z): (object or None, surface height), by Unity's sphere cast
        from `top` straight down."""
        geom, height = world.sphere_cast_down(x, z, top, SUPPORT_RADIUS)
        return world.owner(geom), height

    def mover_touched(self, world: World, movers: list[SimObject]) -> SimObject | None:
        """The scripted mover (rotating cog) the body stands on or touches: the first of `movers` that a sphere of
        MOVER_CARRY_RADIUS cast down from the top of the body meets, everything else left out."""
        others = [g for obj in world.objects if obj not in movers for g in obj.geom_ids]
        geom, _ = world.sphere_cast_down(self.x, self.z, self._body_top(), MOVER_CARRY_RADIUS, exclude=others)
        return world.owner(geom)

    def match_height(self, world: World, top: float | None = None) -> bool:
        """Stand on the structure below (MCS MatchAgentHeightToStructureBelow): the camera goes to 0.762 above the
        first surface a sphere cast down from the top of the body meets, when that surface is a structure (room
        floor, platform, ramp...) and not an ordinary object; a change of height then pushes the body out of the
        structures it overlaps. A seesaw plank stood on is pushed down with the performer's weight at every match
        (see press_plank). Returns whether the height changed."""
        if self.fixed_camera_y is not None:
            return False
        if top is None:
            top = self._body_top()
        owner, height = self.support(world, self.x, self.z, top)
        if owner is None or not (owner.structural or owner.is_floor or owner.seesaw):
            return False
        if owner.plank:
            self.plank_pushes.append((owner, world.last_cast_point.copy()))
        if abs(height - self.floor_y) < 1e-6:
            return False
        self.floor_y = height
        self._push_out(world)
        return True

    def press_plank(self, world: World) -> None:
        """Before an action's physics, push each seesaw plank this action's height matches stood on straight down at
        the point the cast touched it, once per match (MCS adds the performer's weight as a force at every
        MatchAgentHeightToStructureBelow, and the forces act in the next physics step): once for most actions, twice
        for a move (before and after the step), twice at the start (the scene's first match and the
        Initialize action's)."""
        for plank, point in self.plank_pushes:
            world.push_plank(plank, point, SEESAW_PUSH)
        self.plank_pushes.clear()

    def _structure_overlaps(self, world: World, x: float, z: float, floor_y: float,
                            seesaws: bool = False) -> list[tuple[float, np.ndarray, float]]:
        """How deep Unity's capsule standing on `floor_y` at (x, z) overlaps each structure it meets (room included;
        seesaw parts too when asked), the unit direction (MuJoCo frame) that leads out of it and the height of the
        structure's touching point."""
        found = []
        shorter = POSE_BODY_HEIGHT[STANDING] - POSE_BODY_HEIGHT[self.pose]  # legacy poses keep low bodies low
        low = floor_y + STRUCTURE_AXIS_LOW
        high = max(low, floor_y + AXIS_HIGH - shorter)
        for geom, gap, fromto in world.segment_contacts(x, z, low, high, STRUCTURE_RADIUS):
            owner = world.owner(geom)
            if owner is None or not (owner.structural or owner.is_floor or (seesaws and owner.seesaw)):
                continue
            away = (fromto[:3] - fromto[3:]) * (1.0 if gap >= 0 else -1.0)
            norm = float(np.linalg.norm(away))
            if norm > 1e-9 and STRUCTURE_RADIUS - gap > 1e-6:
                found.append((STRUCTURE_RADIUS - gap, away / norm, float(fromto[5])))
        return found

    def _push_out(self, world: World) -> None:
        """Move the body out of the structures and seesaw parts it overlaps, deepest first (Unity's ComputePenetration
        after a change of height, which leaves out only light objects the body can shove: sideways out of a platform's
        side after a fall; up and off a ramp's end; away from the end of a seesaw plank stepped off). A surface gentle
        enough to walk on (up to 45 degrees) is where the height match has just stood the body, not something to be
        pushed out of: every step up or down a 45-degree ramp stays a whole step."""
        for _ in range(4):
            overlaps = self._structure_overlaps(world, self.x, self.z, self.floor_y, seesaws=True)
            overlaps = [overlap for overlap in overlaps if overlap[1][2] < CLIMB_NORMAL_Z]
            if not overlaps:
                break
            depth, away, _ = max(overlaps, key=lambda overlap: overlap[0])
            self.x += float(away[0]) * depth
            self.z += float(away[1]) * depth
            self.floor_y += float(away[2]) * depth
        self.place_capsule(world, self.x, self.z)

    def _side_in_the_way(self, world: World, x: float, z: float, feet: float | None = None) -> bool:
        """Whether Unity's capsule, moved to (x, z) at its present height, would run into a structure too steep to
        walk on (walls, platform sides, lips, the side of a ramp); gentler surfaces are climbed, and so is an
        edge no higher than MAX_RISE above the feet where the step ends (`feet`, default where they are now): a
        0.1 m rotating cog, a platform's edge at the top of a 45-degree ramp."""
        feet = self.floor_y if feet is None else feet
        return any(away[2] < CLIMB_NORMAL_Z and height - feet > MAX_RISE
                   for _, away, height in self._structure_overlaps(world, x, z, self.floor_y))

    def clear_light_objects(self, world: World) -> list:
        """Push light objects that start inside the body out of it, radially, as far as a shove would (Unity's
        depenetration in the first physics step: a small ball at 0.2 m ends up visible ahead)."""
        self.place_capsule(world, self.x, self.z)
        radius = float(world.model.geom_size[world.performer_geom][0])
        moved = []
        for obj in world.objects:
            if not obj.present or not self._shovable(obj):
                continue
            if float(np.hypot(*(world.center(obj)[:2] - np.array([self.x, self.z])))) > radius + max(obj.size) + 0.1:
                continue
            away = world.center(obj)[:2] - np.array([self.x, self.z])
            norm = float(np.linalg.norm(away))
            push = START_CLEAR_RADIUS - norm
            if push <= 0:
                continue
            direction = np.append(away / norm if norm > 1e-9 else yaw_forward_mj(self.yaw)[:2], 0.0)
            world.set_pose(obj, world.body_pos(obj).copy() + direction * push, world.body_mat(obj).copy())
            moved.append(obj)
        return moved

    def shove(self, world: World, delta: np.ndarray) -> list:
        """Push light objects the body now overlaps along the move direction (MCS shoves objects under 2 kg)."""
        direction = np.array([delta[0], delta[1], 0.0])
        norm = float(np.linalg.norm(direction))
        if norm < 1e-9:
            return []
        direction /= norm
        radius = float(world.model.geom_size[world.performer_geom][0])
        shoved = []
        for geom, dist, _ in world.body_contacts(margin=radius - SHOVE_RADIUS):
            owner = world.owner(geom)
            if owner is None or not self._shovable(owner) or owner in shoved:
                continue
            shoved.append(owner)
        for obj in shoved:
            push = SHOVE_RADIUS - self.body_distance(world, obj)
            if push <= 0:
                continue
            world.set_pose(obj, world.body_pos(obj).copy() + direction * push, world.body_mat(obj).copy())
            world.set_velocity(obj, direction * SHOVE_SPEED)
        return shoved

    def reach_axis_distance(self, point_mj: np.ndarray) -> float:
        """Distance from a point to the reach zone's axis segment (AXIS_LOW..REACH_AXIS_HIGH above the feet)."""
        low, high = self.floor_y + AXIS_LOW, self.floor_y + REACH_AXIS_HIGH
        return float(axis_distances(np.asarray(point_mj, float)[None], self.x, self.z, low, high)[0])

    def horizontal_distance(self, x: float, z: float) -> float:
        """Distance on the floor plan (MuJoCo x, y) from the body's axis, where the camera is, to a point."""
        return math.hypot(x - self.x, z - self.z)

    def _segment_distance(self, world: World, obj, high: float) -> float:
        geoms = [g for g in obj.geom_ids if world.model.geom_group[g] < GROUP_PERFORMER] or obj.geom_ids
        return world.segment_distance(self.x, self.z, self.floor_y + AXIS_LOW, self.floor_y + high, geoms)

    def body_distance(self, world: World, obj) -> float:
        """Distance from the body's axis (Unity's capsule segment, AXIS_LOW..AXIS_HIGH above the feet) to an
        object's nearest surface."""
        return self._segment_distance(world, obj, AXIS_HIGH)

    def reach_distance(self, world: World, obj) -> float:
        """Distance from the reach zone's axis to an object's nearest surface: what MCS compares with the reach.
        Unity's overlap capsule for what the performer can act on runs along the body's capsule segment with its
        upper end raised by the reach (AXIS_LOW..REACH_AXIS_HIGH above the feet), so reach is measured across the
        floor plan for anything up to that height."""
        return self._segment_distance(world, obj, REACH_AXIS_HIGH)

    def move(self, world: World, action: str, scale: float = 1.0) -> bool:
        """Take one 0.1 m step (times `scale`, for noise), all or nothing; False when obstructed. As MCS: stand on the
        structure below first, check the step at the present height, then stand on the structure below the new
        position (climbing ramps, stepping or falling down) and shove light objects out of the way."""
        self.match_height(world)
        ahead, right = MOVE_DIRECTIONS[action]
        delta = MOVE_DISTANCE * scale * (ahead * yaw_forward_mj(self.yaw) + right * yaw_right_mj(self.yaw))
        # Unity keeps positions in 32-bit floats: 0.01 + 4 x 0.1 is 0.41 there, not 0.41000000000000003.
        x, z = float(np.float32(self.x + delta[0])), float(np.float32(self.z + delta[1]))
        new_floor = self.standing_height(world, x, z)
        rise = new_floor - self.floor_y
        if rise > MAX_RISE * scale or (rise > 1e-3 and world.last_cast_normal[2] < CLIMB_NORMAL_Z):
            return False  # a structure too steep to climb (60 degrees) or a step up
        feet = max(new_floor, self.floor_y)  # edges are steps by where the feet will be
        if world.lip_in_the_way(x, z, STRUCTURE_RADIUS) or self._side_in_the_way(world, x, z, feet):
            return False
        if self.blocked_at(world, x, z, floor_y=max(new_floor, self.floor_y)):
            return False
        self.x, self.z = x, z
        self.place_capsule(world, x, z)
        self.match_height(world)
        self.shove(world, delta)
        return True

    def change_pose(self, world: World, pose: str) -> bool:
        """Enter a pose; False when the space it needs is obstructed."""
        if self.blocked_at(world, self.x, self.z, pose):
            return False
        self.pose = pose
        self.place_capsule(world, self.x, self.z)
        return True

