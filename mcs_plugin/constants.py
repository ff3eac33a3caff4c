"""MCS facts every layer shares: the performer's body and moves, metadata tiers and the simulator's geom groups.

Values are those of the MCS 0.7.4 Unity app. Action names live in `mcs_plugin.mcs.action.Action`.
"""

from __future__ import annotations

# The performer's moves.
MOVE_DISTANCE = 0.1  # metres per MoveAhead/Back/Left/Right
ROTATE_DEGREES = 10.0  # per RotateLeft/Right and LookUp/Down
ACTION_NOISE = 0.5  # noise_enabled scales moves and forces by 1 + U(-0.5, 0.5) (MCS Parameter.MIN_NOISE/MAX_NOISE)
MAX_TILT = 90.0  # head tilt limit, degrees either way
# Each move as (ahead, right) steps of MOVE_DISTANCE in the performer's frame.
MOVE_DIRECTIONS: dict[str, tuple[int, int]] = {
    "MoveAhead": (1, 0), "MoveBack": (-1, 0), "MoveLeft": (0, -1), "MoveRight": (0, 1),
}

# The performer's body and camera.
PERFORMER_RADIUS = 0.25  # metres: the disc the performer's body covers on the floor
PERFORMER_REACH = 1.0  # metres: how far from the performer (its reach zone, see sim.performer) it can act on an object
CAMERA_FIELD_OF_VIEW = 42.5  # vertical, degrees
CAMERA_HALF_HORIZONTAL_FOV = 30.25  # degrees: half the horizontal view of MCS's 3:2 image (600x400)
CLIPPING_PLANES = (0.01, 150.0)  # camera near and far planes, metres
SUPPORT_RADIUS = 0.12  # radius of the sphere MCS casts down to find the structure the performer stands on
MAX_RISE = 0.13  # the most a 0.1 m move may climb: ramps up to 45 degrees (0.1), not 60 (0.17)
MAX_CLIMB_DEGREES = 46.0  # surfaces steeper than this cannot be climbed (MCS: ramps up to 45 degrees)

# Poses, each with its camera height and collision-capsule height above the floor (seed 002 / pre-0.5 Unity).
STANDING, CRAWLING, LYING = "STANDING", "CRAWLING", "LYING"
POSE_CAMERA_HEIGHT: dict[str, float] = {STANDING: 0.762, CRAWLING: 0.381, LYING: 0.1}
POSE_BODY_HEIGHT: dict[str, float] = {STANDING: 1.23, CRAWLING: 0.6, LYING: 0.2}
STANDING_CAMERA_HEIGHT = POSE_CAMERA_HEIGHT[STANDING]
CAPSULE_TOP = 1.047  # top of MCS's performer capsule above the feet (radius 0.251, height 1.23, centre 0.33 under the
# camera): nothing higher meets the body (MCS scenes hang occluders' poles 1.35 m up across the way)

# Metadata tiers of MCS 0.7.4 ("default": the tier when no metadata key is set) and the names older MCS used.
ORACLE, LEVEL2, LEVEL1, NONE, DEFAULT = "oracle", "level2", "level1", "none", "default"
TIERS: tuple[str, ...] = (ORACLE, LEVEL2, LEVEL1, NONE, DEFAULT)
TIER_ALIASES: dict[str, str] = {"full": ORACLE, "no_navigation": LEVEL2, "no_vision": LEVEL1}
TIERS_WITH_WORLD_STATE = (ORACLE, DEFAULT)  # tiers whose steps report positions and object lists

# MuJoCo geom groups: ray casts and the renderer skip PERFORMER and ABSENT (hidden, held or not yet shown). SEE_PAST
# holds the objects that hide nothing else from view (tools; see sim/observation.py). Simulation agents' shells (the
# body boxes their visibility points are tested against) share the performer's group: not drawn, not solid, only hit
# by the rays toward agents' visibility points. LOOK holds parts that are only drawn (the look of a type MCS gives
# registry colliders of another shape): no ray meets them and nothing collides with them.
GROUP_OBJECT, GROUP_STRUCTURE, GROUP_LOOK, GROUP_SEE_PAST, GROUP_PERFORMER, GROUP_ABSENT = 0, 1, 2, 3, 4, 5
GROUP_AGENT_SHELL = GROUP_PERFORMER
