"""The performer: position, yaw, head tilt, pose, camera, and collision-checked movement."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mcs_plugin.sim.coords import camera_axes_mj, yaw_forward_mj, yaw_right_mj
from mcs_plugin.sim.world import World

MOVE_DISTANCE = 0.1  # metres per Move action
ROTATE_DEGREES = 10.0  # per RotateLeft/Right and LookUp/Down
MAX_TILT = 90.0
PERFORMER_RADIUS = 0.25
PERFORMER_REACH = 1.0
CAMERA_FIELD_OF_VIEW = 42.5
CLIPPING_PLANES = (0.01, 150.0)
FOOT_CLEARANCE = 0.05  # the capsule floats this far above the floor so the floor never obstructs

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

    def blocked_at(self, world: World, x: float, z: float, pose: str | None = None) -> bool:
        """Whether the performer's capsule would overlap anything at (x, z) in a pose."""
        self.place_capsule(world, x, z, pose)
        blocked = world.collides(world.performer_geom)
        self.place_capsule(world, self.x, self.z)
        return blocked

    def move(self, world: World, action: str, scale: float = 1.0) -> bool:
        """Take one 0.1 m step (times `scale`, for noise), all or nothing; False when obstructed."""
        ahead, right = MOVE_DIRECTIONS[action]
        delta = MOVE_DISTANCE * scale * (ahead * yaw_forward_mj(self.yaw) + right * yaw_right_mj(self.yaw))
        x, z = self.x + delta[0], self.z + delta[1]
        if self.blocked_at(world, x, z):
            return False
        self.x, self.z = x, z
        self.place_capsule(world, x, z)
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
