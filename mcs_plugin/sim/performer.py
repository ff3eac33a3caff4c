"""The performer: position, yaw, head tilt, pose, camera, and collision-checked movement."""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from mcs_plugin.sim.coords import camera_axes_mj, yaw_forward_mj, yaw_right_mj
from mcs_plugin.sim.world import GROUP_PERFORMER as GROUP_LIMIT, World

MOVE_DISTANCE = 0.1  # metres per Move action
ROTATE_DEGREES = 10.0  # per RotateLeft/Right and LookUp/Down
MAX_TILT = 90.0
PERFORMER_RADIUS = 0.25
PERFORMER_REACH = 1.0
CAMERA_FIELD_OF_VIEW = 42.5
CLIPPING_PLANES = (0.01, 150.0)
AXIS_LOW, AXIS_HIGH = 0.068, 0.796  # Unity's capsule segment (height 1.23, radius 0.251, centre 0.33 below the camera)
FOOT_CLEARANCE = 0.05  # the capsule floats this far above the floor so the floor never obstructs
CAPSULE_TOP = 1.047  # top of Unity's capsule above the feet: height matching casts down from here
SUPPORT_RADIUS = 0.12  # radius of the sphere MCS casts down to find the structure the performer stands on
GROUND_NORMAL_Z = math.cos(math.radians(46.0))  # contacts with surfaces at most ~45 degrees steep are ground
PUSH_OUT_RADIUS = 0.221  # after a change of height MCS pushes the body this far out of structures (IT 065, 083)
PUSHABLE_MASS = 2.0  # walking into a lighter non-kinematic object shoves it (IT 011 1.9 kg) instead of stopping
SHOVE_RADIUS = 0.2  # a shoved object is kept this far (surface) from the body's axis (IT 011)
SHOVE_SPEED = 0.1  # m/s a shoved object keeps rolling with (IT 011)

STANDING, CRAWLING, LYING = "STANDING", "CRAWLING", "LYING"
# Camera height and collision-capsule height of each pose (seed 002 / pre-0.5 Unity).
POSE_CAMERA_HEIGHT = {STANDING: 0.762, CRAWLING: 0.381, LYING: 0.1}
POSE_BODY_HEIGHT = {STANDING: 1.23, CRAWLING: 0.6, LYING: 0.2}

MOVE_DIRECTIONS = {"MoveAhead": (1, 0), "MoveBack": (-1, 0), "MoveLeft": (0, -1), "MoveRight": (0, 1)}


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
        """Put the collision capsule of a pose at (x, z) (MuJoCo data updated for distance queries)."""
        body_height = POSE_BODY_HEIGHT[pose or self.pose]
        radius = world.model.geom_size[world.performer_geom][0]
        half = max(body_height / 2.0 - radius, 0.01)
        world.model.geom_size[world.performer_geom][1] = half
        world.model.geom_rbound[world.performer_geom] = radius + half
        centre = self.floor_y + FOOT_CLEARANCE + radius + half
        mocap = world.model.body_mocapid[world.performer_body]
        world.data.mocap_pos[mocap] = (x, z, centre)
        world.data.geom_xpos[world.performer_geom] = (x, z, centre)

    def _obstacles(self, world: World) -> list[tuple[int, float, np.ndarray]]:
        """Contacts of the placed capsule that stop it: not ground (a surface at most ~45 degrees steep touched
        below the capsule's lower sphere), not a light object it can shove, not a lip left open."""
        radius = float(world.model.geom_size[world.performer_geom][0])
        centre = world.data.geom_xpos[world.performer_geom]
        low_centre = centre[2] - float(world.model.geom_size[world.performer_geom][1])
        found = []
        for geom, dist, fromto in world.contacts(world.performer_geom):
            owner = world.owner(geom)
            if owner is not None and self._shovable(owner):
                continue
            if owner is not None and owner.is_lip:
                found.append((geom, dist, fromto))
                continue
            # Normal from the other geom toward the capsule's nearest point (fromto: capsule point, other point).
            normal = fromto[:3] - fromto[3:]
            norm = float(np.linalg.norm(normal))
            if norm > 1e-9:
                normal = normal / norm
                if dist < 0:
                    normal = -normal
                if normal[2] >= GROUND_NORMAL_Z and fromto[5] <= low_centre + 1e-6:
                    continue
            elif fromto[5] <= low_centre - radius * 0.5:
                continue
            found.append((geom, dist, fromto))
        return found

    @staticmethod
    def _shovable(obj) -> bool:
        return obj.dynamic and not obj.structural and not obj.is_agent and obj.mass < PUSHABLE_MASS

    def blocked_at(self, world: World, x: float, z: float, pose: str | None = None) -> bool:
        """Whether the performer's capsule would run into an obstacle at (x, z) in a pose."""
        self.place_capsule(world, x, z, pose)
        blocked = bool(self._obstacles(world))
        self.place_capsule(world, self.x, self.z)
        return blocked

    def support(self, world: World, x: float, z: float, top: float):
        """What the performer would stand on at (x, z): (object or None, surface height), by Unity's sphere cast
        from `top` straight down."""
        geom, height = world.sphere_cast_down(x, z, top, SUPPORT_RADIUS)
        return world.owner(geom), height

    def match_height(self, world: World, top: float | None = None) -> bool:
        """Stand on the structure below (MCS MatchAgentHeightToStructureBelow): the camera goes to 0.762 above the
        first surface a sphere cast down from the top of the body meets, when that surface is a structure (room
        floor, platform, ramp...) and not an ordinary object. Returns whether the height changed."""
        if self.fixed_camera_y is not None:
            return False
        if top is None:  # the top of the body: CAPSULE_TOP standing, lower in the seed-002 poses
            top = self.floor_y + POSE_CAMERA_HEIGHT[self.pose] + CAPSULE_TOP - POSE_CAMERA_HEIGHT[STANDING]
        owner, height = self.support(world, self.x, self.z, top)
        if owner is None or not (owner.structural or owner.is_floor or owner.seesaw):
            return False
        if abs(height - self.floor_y) < 1e-6:
            return False
        dropped = height < self.floor_y - 0.05
        self.floor_y = height
        self.place_capsule(world, self.x, self.z)
        if dropped:
            self._push_out(world)
        return True

    def _push_out(self, world: World) -> None:
        """After falling, move horizontally out of structures the body now overlaps (Unity's ComputePenetration)."""
        radius = float(world.model.geom_size[world.performer_geom][0])
        for _ in range(4):
            self.place_capsule(world, self.x, self.z)
            worst = None
            for geom, dist, fromto in self._obstacles(world):
                owner = world.owner(geom)
                if owner is None or not (owner.structural or owner.is_floor):
                    continue
                away = fromto[:2] - fromto[3:5]
                if dist < 0:
                    away = -away
                norm = float(np.linalg.norm(away))
                if norm < 1e-9:
                    continue
                depth = PUSH_OUT_RADIUS - (radius + dist)
                if depth > 1e-6 and (worst is None or depth > worst[0]):
                    worst = (depth, away / norm)
            if worst is None:
                break
            depth, away = worst
            self.x += float(away[0]) * depth
            self.z += float(away[1]) * depth
        self.place_capsule(world, self.x, self.z)

    def shove(self, world: World, delta: np.ndarray) -> list:
        """Push light objects the body now overlaps along the move direction (MCS shoves objects under 2 kg)."""
        direction = np.array([delta[0], delta[1], 0.0])
        norm = float(np.linalg.norm(direction))
        if norm < 1e-9:
            return []
        direction /= norm
        radius = float(world.model.geom_size[world.performer_geom][0])
        shoved = []
        for geom, dist, _ in world.contacts(world.performer_geom, margin=radius - SHOVE_RADIUS):
            owner = world.owner(geom)
            if owner is None or not self._shovable(owner) or owner in shoved:
                continue
            shoved.append(owner)
        for obj in shoved:
            push = SHOVE_RADIUS - self._axis_gap(world, obj)
            if push <= 0:
                continue
            world.set_pose(obj, world.body_pos(obj).copy() + direction * push, world.body_mat(obj).copy())
            world.set_velocity(obj, direction * SHOVE_SPEED)
        return shoved

    def _axis_gap(self, world: World, obj) -> float:
        """Horizontal-ish distance from the capsule's axis to an object's surface."""
        radius = float(world.model.geom_size[world.performer_geom][0])
        geoms = [g for g in obj.geom_ids if world.model.geom_group[g] < GROUP_LIMIT] or obj.geom_ids
        best = min(mujoco.mj_geomDistance(world.model, world.data, world.performer_geom, g, 5.0, None) for g in geoms)
        return best + radius

    def axis_distance(self, point_mj: np.ndarray) -> float:
        """Distance from a point to the body's axis segment (Unity's capsule, AXIS_LOW..AXIS_HIGH above the feet)."""
        low, high = self.floor_y + AXIS_LOW, self.floor_y + AXIS_HIGH
        dz = max(low - point_mj[2], 0.0, point_mj[2] - high)
        return math.hypot(math.hypot(point_mj[0] - self.x, point_mj[1] - self.z), dz)

    def reach_distance(self, world: World, obj) -> float:
        """Distance from the body's axis (the collision capsule's segment) to an object's nearest surface."""
        self.place_capsule(world, self.x, self.z)
        radius = float(world.model.geom_size[world.performer_geom][0])
        geoms = [g for g in obj.geom_ids if world.model.geom_group[g] < GROUP_LIMIT] or obj.geom_ids
        best = min(mujoco.mj_geomDistance(world.model, world.data, world.performer_geom, g, 20.0, None) for g in geoms)
        return max(best + radius, 0.0)

    def move(self, world: World, action: str, scale: float = 1.0) -> bool:
        """Take one 0.1 m step (times `scale`, for noise), all or nothing; False when obstructed. Then stand on the
        structure below (climbing ramps, stepping or falling down) and shove light objects out of the way."""
        ahead, right = MOVE_DIRECTIONS[action]
        delta = MOVE_DISTANCE * scale * (ahead * yaw_forward_mj(self.yaw) + right * yaw_right_mj(self.yaw))
        x, z = self.x + delta[0], self.z + delta[1]
        if self.blocked_at(world, x, z):
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


def distance_xz(a: dict, b: dict) -> float:
    """Horizontal distance between two MCS points."""
    return math.hypot(a["x"] - b["x"], a["z"] - b["z"])
