"""EmbeddedController: the MCS controller API (start_scene / step / end_scene) over the embedded simulator."""

from __future__ import annotations

import os
import random
from dataclasses import replace
from typing import Any

import numpy as np
from PIL import Image

from mcs_plugin.constants import (
    ACTION_NOISE, CAMERA_FIELD_OF_VIEW, CAPSULE_TOP, CLIPPING_PLANES, DEFAULT, GROUP_PERFORMER, LEVEL1, MOVE_DIRECTIONS,
    NONE, ORACLE, PERFORMER_RADIUS, PERFORMER_REACH, STANDING, STANDING_CAMERA_HEIGHT, TIERS_WITH_WORLD_STATE,
)
from mcs_plugin.mcs import (
    Action,
    GoalMetadata,
    MCSConfig,
    ReturnStatus,
    Scene,
    StepMetadata,
    load_config,
    load_scene,
    parse_action_string,
    parse_scene,
)
from mcs_plugin.mcs.goal import end_scene_record
from mcs_plugin.sim.actions import ActionRunner, Outcome
from mcs_plugin.sim.agents import Agents
from mcs_plugin.sim.observation import objects_metadata, stable_color, visible_objects
from mcs_plugin.sim.performer import BODY_RADIUS, Performer
from mcs_plugin.sim.reward import goal_achieved, step_reward
from mcs_plugin.sim.scripts import (
    TriggerSequence,
    apply_scripts,
    carry_attached_lids,
    object_states,
)
from mcs_plugin.sim.build import build_world, room_materials
from mcs_plugin.sim.look import DEFAULT_LOOK, random_look
from mcs_plugin.sim.surfaces import geom_surfaces
from mcs_plugin.sim.world import (
    PHYSICS_FRAMES_PER_SECOND,
    PhysicsError,
    SimObject,
    World,
    geom_colors,
    yaw_of,
)

INTUITIVE_PHYSICS_CAMERA = (0.0, 1.5, -4.5, 0.0, 0.0)  # x, y, z, yaw, tilt
ISOMETRIC_CAMERA = (4.0, 3.0, -4.0, 315.0, 35.264)
ISOMETRIC_FRONT_RIGHT_CAMERA = (4.0, 3.0, 4.0, 225.0, 35.264)


LAVA_STANDING_HEIGHT = 0.05  # the performer stands on lava only when its floor is this low (lava lies on the floor)


def lava_areas(scene: Scene) -> list[tuple[float, float, float, float]]:
    """Lava as MCS reports it: (x1, z1, x2, z2) per 1 x 1 cell, or the lava parts of a partitioned floor (which
    replaces the scene's cells; its rectangles come as (x_low, z_high, x_high, z_low))."""
    partition = scene.partition_floor
    if partition is not None:
        half_x, half_z = scene.room_dimensions.x / 2.0, scene.room_dimensions.z / 2.0
        areas = []
        left, right = max(0.0, min(1.0, partition.left_half)), max(0.0, min(1.0, partition.right_half))
        if left > 0:
            areas.append((-half_x, half_z, -half_x + left * half_x, -half_z))
        if right > 0:
            areas.append((half_x - right * half_x, half_z, half_x, -half_z))
        return areas
    return [(c.x - 0.5, c.z - 0.5, c.x + 0.5, c.z + 0.5) for c in scene.lava or []]


class EmbeddedController:
    """An in-process MCS simulator that answers like machine_common_sense's Controller."""

    def __init__(self, config: dict | str | os.PathLike | MCSConfig | None = None):
        self.config = load_config(config)
        self.width, self.height = self.config.width, self.config.height
        self.tier = self.config.tier
        self._rng = random.Random(self.config.seed)
        self._look_rng = random.Random(f"look {self.config.seed}")  # one randomised look per scene start
        self._renderer = None
        self._agents: Agents | None = None
        self._movers: list = []
        self.scene: Scene | None = None
        self.world: World | None = None
        self.performer: Performer | None = None
        self.goal: GoalMetadata | None = None
        self._reported_goal: GoalMetadata | None = None  # the goal as this tier reports it
        self._lava: list[tuple[float, float, float, float]] = []
        self.step_number = 0
        self.steps_on_lava = 0
        self.habituation_trial: int | None = None
        self.predictions: list[dict] = []
        self.ended = True
        self.last_output: StepMetadata | None = None
        self._runner: ActionRunner | None = None
        self._colors: np.ndarray | None = None
        self._geom_rgb: np.ndarray | None = None
        self._visible_cache: dict[str, float] | None = None

    # -- public MCS API -------------------------------------------------------------------------------
    def start_scene(self, config_data: dict | Scene | str | os.PathLike) -> StepMetadata:
        """Load a scene (dict, Scene or path to scene JSON) and return the output of its Initialize step."""
        if isinstance(config_data, Scene):
            scene = config_data
        elif isinstance(config_data, dict):
            scene = parse_scene(config_data, source=str(config_data.get("name") or "<scene dict>"))
        else:
            scene = load_scene(config_data)
        self.scene = scene
        self.world = build_world(scene, performer_radius=BODY_RADIUS)
        self.performer = self._initial_performer(scene)
        self.performer.place_capsule(self.world, self.performer.x, self.performer.z)
        # Stand on whatever structure is below the start position (cast from the top of the body at the scene's y).
        self.performer.match_height(self.world, top=scene.performer_start.position.y + CAPSULE_TOP - STANDING_CAMERA_HEIGHT)
        self.goal = scene.goal_metadata(self.config.steps_allowed_in_lava)
        self._reported_goal = self._goal_for_tier()
        self._lava = lava_areas(scene)
        self.step_number = 0
        self.steps_on_lava = 0
        self.habituation_trial = 1 if self.goal and self.goal.habituation_total else None
        self.predictions = []
        self.ended = False
        self._rng = random.Random(self.config.seed)
        self._runner = ActionRunner(self.world, self.performer, self.width, self.height, self._restrict_open(scene))
        self._runner.max_held = self.config.max_held_objects
        self._runner.noise = self.generate_noise
        self._runner.visible = self._visible
        self._movers = [o for o in self.world.objects if o.scene_object is not None and (o.structural or not o.dynamic)
                        and (o.scene_object.moves or o.scene_object.rotates)]
        self._agents = Agents(self.world)
        self._runner.agents = self._agents
        self._trigger = TriggerSequence(self.world, scene.goal.triggered_by_target_sequence if scene.goal else None)
        self._colors = self._instance_colors()
        self._geom_rgb = geom_colors(self.world)
        self._setup_renderer(scene)
        self._visible_cache = None
        self.world.forward()
        # Unity simulates one action's physics during Initialize (objects settle onto the floor, start falling).
        self.world.settle_into_floor()
        self.performer.clear_light_objects(self.world)
        self.world.forward()
        self._advance(self._carrier())
        self._visible_cache = None
        output = self._output(Outcome(ReturnStatus.SUCCESSFUL))
        preview = self.goal.last_preview_phase_step if self.goal else 0
        if preview and not scene.goal.skip_preview_phase:
            frames = [output]
            for _ in range(preview):
                frames.append(self.step(Action.PASS.value))
            output = frames[-1]
            for name in ("image_list", "depth_map_list", "object_mask_list"):
                setattr(output, name, [f for out in frames for f in getattr(out, name)])
        self.last_output = output
        return output

    def step(self, action: str | Action, **kwargs: Any) -> StepMetadata | None:
        """Run one action (name, "Action,key=value" string or Action) and return the step's output."""
        if self.scene is None or self.ended:
            raise RuntimeError("no scene is running: call start_scene first")
        name, inline = parse_action_string(action.value if isinstance(action, Action) else str(action))
        params = {**inline, **kwargs}
        if self.goal and self.goal.last_step is not None and self.step_number >= self.goal.last_step:
            return None
        if name == Action.END_SCENE.value:
            self.end_scene()
            return None
        if not self._runner.supports(name):
            raise ValueError(f"unknown action {name!r}; known actions: {', '.join(a.value for a in Action)}")
        # Every check before any state changes: a rejected action leaves the scene as it was, step number included.
        self._runner.validate(name, params)
        self._check_allowed(name, params)
        if name == Action.END_HABITUATION.value and self.goal is not None:
            self._runner.hidden_params = self.goal.hidden_params_at_step(self.step_number)
        self.step_number += 1
        self._visible_cache = None
        self._runner.step = self.step_number
        self._agents.begin_step(self.step_number)
        carrier = self._carrier()
        outcome = self._runner.run(name, params)
        if name == Action.OPEN_OBJECT.value and outcome.status == ReturnStatus.SUCCESSFUL:
            self._trigger.container_opened(outcome.resolved_object, self.step_number)
        elif name == Action.END_HABITUATION.value:
            self._trigger.restart(self.world)
            self._geom_rgb = geom_colors(self.world)
        self._advance(carrier, matched=name in MOVE_DIRECTIONS)
        self._visible_cache = None  # the action and physics changed what can be seen
        if name == Action.END_HABITUATION.value and self.habituation_trial is not None:
            self.habituation_trial += 1
            if self.goal and self.habituation_trial > self.goal.habituation_total:
                self.habituation_trial = None
        output = self._output(outcome)
        self.last_output = output
        return output

    def end_scene(self, choice: str | None = None, confidence: float = 1.0) -> dict:
        """End the scene, recording a passive scene's choice and confidence; returns what was recorded."""
        if self.scene is None or self.ended:
            raise RuntimeError("end_scene called with no scene running")
        self.ended = True
        answer = self.scene.goal.answer if self.scene.goal is not None else None
        record = end_scene_record(choice, confidence, answer, self.step_number)
        self.scene_result = record
        return record

    def make_step_prediction(self, choice: str | None = None, confidence: float | None = None,
                             violations_xy_list: list[dict] | None = None, heatmap_img: Image.Image | None = None,
                             internal_state: object = None) -> None:
        """Record a prediction about the previous step (passive scenes)."""
        self.predictions.append({"step": self.step_number, "choice": choice, "confidence": confidence,
                                 "violations_xy_list": violations_xy_list, "internal_state": internal_state})

    def generate_noise(self) -> float:
        """A random value in [-ACTION_NOISE, ACTION_NOISE] when noise is enabled, else 0. (MCS's docstring says
        +-0.05; its Parameter.MIN_NOISE / MAX_NOISE, which the draw uses, are +-0.5.)"""
        return self._rng.uniform(-ACTION_NOISE, ACTION_NOISE) if self.config.noise_enabled else 0.0

    def get_metadata_level(self) -> str:
        """The metadata tier this controller reports at."""
        return self.tier

    def retrieve_object_states(self, object_id: str) -> list[str]:
        """An object's scripted states at the current step."""
        return object_states(self.world, object_id, self.step_number)

    def stop_simulation(self) -> None:
        """Release the renderer and the world."""
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
        self.world = None
        self.ended = True

    # -- internals --------------------------------------------------------------------------------------
    @staticmethod
    def _restrict_open(scene: Scene) -> str | None:
        if scene.restrict_open_objects:
            return "objects"
        return "doors" if scene.restrict_open_doors else None

    def _initial_performer(self, scene: Scene) -> Performer:
        start = scene.performer_start
        fixed = None
        if scene.intuitive_physics:
            fixed = INTUITIVE_PHYSICS_CAMERA
        elif getattr(scene, "isometric_front_right", False):
            fixed = ISOMETRIC_FRONT_RIGHT_CAMERA
        elif scene.isometric:
            fixed = ISOMETRIC_CAMERA
        if fixed is not None:
            x, y, z, yaw, tilt = fixed
            return Performer(x=x, z=z, yaw=yaw, tilt=tilt, pose=STANDING, fixed_camera_y=y)
        return Performer(x=start.position.x, z=start.position.z, yaw=start.rotation.y % 360.0,
                         tilt=start.rotation.x, pose=STANDING)

    def _setup_renderer(self, scene: Scene) -> None:
        """A renderer for this scene's world: its surfaces, and a look drawn from the seed when randomising."""
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
        look = random_look(self._look_rng) if self.config.randomize_rendering else DEFAULT_LOOK
        if self.config.render:
            from mcs_plugin.sim.renderer import Renderer

            near, far = CLIPPING_PLANES
            surfaces = geom_surfaces(self.world.objects, self.world.model.ngeom, room_materials(scene))
            self._renderer = Renderer(self.world.model, self.width, self.height, CAMERA_FIELD_OF_VIEW, near, far,
                                      geom_surface=surfaces, look=look)

    def _instance_colors(self) -> np.ndarray:
        """Stable instance colours per object (index order), plus black for 'nothing' at the end."""
        taken: set[tuple[int, int, int]] = set()
        colors = [stable_color(obj.id, taken) for obj in self.world.objects]
        return np.array(colors + [(0, 0, 0)], dtype=np.uint8)

    def _step_colors(self) -> np.ndarray:
        """This step's instance colours: stable at oracle/default, shuffled every step at level2."""
        if self.tier in TIERS_WITH_WORLD_STATE:
            return self._colors
        order = list(range(len(self._colors) - 1))
        self._rng.shuffle(order)
        return np.concatenate([self._colors[order], self._colors[-1:]])

    def _visible(self) -> dict[str, float]:
        if self._visible_cache is None:
            self._visible_cache = visible_objects(self.world, self.performer, self.width, self.height)
        return self._visible_cache

    def _check_allowed(self, name: str, params: dict) -> None:
        """Raise ValueError when the goal's action list for this step forbids the action."""
        if self.goal is None:
            return
        context = (self.step_number, self.steps_on_lava, self._trigger.incorrect, self.scene.is_passive())
        if self.goal.is_action_allowed(context[0], name, params, *context[1:]):
            return
        allowed = self.goal.retrieve_action_list_at_step(*context)
        choices = ", ".join(a if not p else f"{a}({p})" for a, p in allowed)
        raise ValueError(f"action {name} {params or ''} is not allowed at step {self.step_number + 1}; allowed: {choices}")

    def _carrier(self) -> SimObject | None:
        """The scripted mover (rotating cog) that carries the performer through this action, judged where the
        performer stands before the action; None without one."""
        return self.performer.mover_touched(self.world, self._movers) if self._movers else None

    def _advance(self, carrier: SimObject | None, matched: bool = False) -> None:
        """Physics for one action, scripted events, held objects, lava. Unity stands the performer on the structure
        below before the physics of every action; moves do it themselves (`matched`), before and after the step.
        The performer rides `carrier`, the mover it touched before the action (see `_carrier`)."""
        world = self.world
        if not matched:
            self.performer.match_height(world)
        self.performer.press_plank(world)
        self._agents.step(self.step_number, (self.performer.x, self.performer.z))
        recoloured = apply_scripts(world, self.step_number, self._trigger)
        if carrier is not None:
            self._ride(carrier)
        if recoloured:
            self._geom_rgb = geom_colors(world)
        world.forward()
        try:
            world.advance()
        except PhysicsError:
            self.ended = True  # the world is no longer to be trusted: the scene must be started again
            raise
        if any(obj.attached_to for obj in world.objects):
            world.forward()
            carry_attached_lids(world)
        self._runner.update_held()
        world.forward()
        if self._on_lava() and not self.scene.is_passive():
            self.steps_on_lava += 1

    def _ride(self, support) -> None:
        """Carry the performer with the structure it stands on, if scripts moved it this step."""
        for obj, pos, mat, new_pos, new_mat in self.world.script_moves:
            if obj is not support:
                continue
            performer = self.performer
            delta = new_mat @ mat.T
            feet = np.array([performer.x, performer.z, performer.floor_y])
            moved = new_pos + delta @ (feet - pos)
            performer.x, performer.z = float(np.float32(moved[0])), float(np.float32(moved[1]))
            performer.yaw = (performer.yaw + yaw_of(new_mat) - yaw_of(mat)) % 360.0
            performer.place_capsule(self.world, performer.x, performer.z)
            return

    def _on_lava(self) -> bool:
        """Whether the performer stands on a lava cell: on the floor over it (a platform above lava is safe)."""
        x, z = self.performer.x, self.performer.z
        if self.performer.floor_y > LAVA_STANDING_HEIGHT:
            return False
        for x1, z1, x2, z2 in self._lava:
            if min(x1, x2) <= x <= max(x1, x2) and min(z1, z2) <= z <= max(z1, z2):
                return True
        return False

    def _render(self, black: bool, colors: np.ndarray) -> tuple[list, list, list]:
        """RGB, depth and mask lists for this step, as the config asks."""
        if self._renderer is None:
            return [], [], []
        want_depth = self.tier != NONE and not self.config.disable_depth_maps
        want_mask = self.tier not in (NONE, LEVEL1) and not self.config.disable_object_masks
        if black:
            h, w = self.height, self.width
            rgb = np.zeros((h, w, 3), np.uint8)
            depth = np.zeros((h, w), np.float32)
            mask = np.zeros((h, w, 3), np.uint8)
        else:
            forward, up = self.performer.camera_axes()
            visible = (self.world.model.geom_group < GROUP_PERFORMER) & self.world.drawn
            for obj in self.world.objects:
                if obj.shrouded:
                    visible[obj.all_geom_ids] = False
            frame = self._renderer.render(self.world.data, self.performer.camera_mj(), forward, up, self._geom_rgb,
                                          visible, want_rgb=True, want_depth=want_depth, want_ids=want_mask)
            rgb, depth = frame.rgb, frame.depth
            if want_mask:
                lut = colors[np.append(self.world.geom_owner, -1)]  # geom -> owner colour; id -1 -> black
                mask = np.take(lut, frame.geom_ids, axis=0)  # np.take: a quarter of fancy indexing's time
        images = [Image.fromarray(rgb)]
        depths = [depth] if want_depth else []
        masks = [Image.fromarray(mask)] if want_mask else []
        return images, depths, masks

    def _output(self, outcome: Outcome) -> StepMetadata:
        """Build this step's StepMetadata at the configured tier."""
        world, performer, config = self.world, self.performer, self.config
        colors = self._step_colors()
        images, depths, masks = self._render(outcome.black_frame, colors)
        achieved = goal_achieved(self.goal, world, performer)
        reward = step_reward(config.reward_mode, achieved, self.step_number, self.steps_on_lava,
                             config.goal_reward, config.step_penalty, config.lava_penalty)
        world_state = self.tier in TIERS_WITH_WORLD_STATE
        objects, structural = [], []
        segmentation = []
        if world_state:
            seen = self._visible()
            goal_ids = set(self.goal.target_ids()) if self.goal is not None else set()
            listed = []
            color_rows = colors.tolist()
            for index, obj in enumerate(world.objects):
                color = tuple(color_rows[index])
                segmentation.append({"objectId": obj.id, "r": color[0], "g": color[1], "b": color[2]})
                if obj.is_floor or (not obj.present and not obj.held and not obj.held_by_agent):
                    continue
                if self.tier == DEFAULT and not (obj.id in seen or obj.held) and not obj.structural:
                    continue
                # only_return_goal_object: the goal's targets and nothing else, not even the room
                if config.only_return_goal_object and (obj.structural or obj.id not in goal_ids):
                    continue
                listed.append((obj, color))
            metas = objects_metadata(world, performer, [o for o, _ in listed], seen, [c for _, c in listed],
                                     [object_states(world, o.id, self.step_number) for o, _ in listed])
            for (obj, _), meta in zip(listed, metas):
                if obj.is_agent:
                    meta.simulation_agent_held_object, meta.simulation_agent_is_holding_held_object = \
                        self._agents.metadata(obj)
                (structural if obj.structural else objects).append(meta)
            objects.sort(key=lambda o: o.uuid)
        position = None
        if world_state and not config.disable_position:
            position = {"x": float(performer.x), "y": float(performer.camera_height), "z": float(performer.z)}
        action_list = self.goal.retrieve_action_list_at_step(
            self.step_number, self.steps_on_lava, self._trigger.incorrect, self.scene.is_passive()) if self.goal else []
        return StepMetadata(
            action_list=action_list,
            camera_aspect_ratio=(self.width, self.height),
            camera_clipping_planes=CLIPPING_PLANES,
            camera_field_of_view=CAMERA_FIELD_OF_VIEW,
            camera_height=performer.camera_height,
            depth_map_list=depths,
            goal=self._reported_goal,
            habituation_trial=self.habituation_trial,
            haptic_feedback={"on_lava": self._on_lava()},
            head_tilt=performer.tilt,
            holes=[(h.x, h.z) for h in self.scene.holes or []] if world_state else None,
            image_list=images,
            lava=list(self._lava) if world_state else None,
            object_list=objects,
            object_mask_list=masks,
            performer_radius=PERFORMER_RADIUS,
            performer_reach=PERFORMER_REACH,
            physics_frames_per_second=PHYSICS_FRAMES_PER_SECOND,
            pose=performer.pose,
            position=position,
            resolved_object=(outcome.resolved_object or "") if self.tier == ORACLE else None,
            resolved_receptacle=(outcome.resolved_receptacle or "") if self.tier == ORACLE else None,
            return_status=outcome.status.value,
            reward=reward,
            room_dimensions=self._room_dimensions() if world_state else None,
            rotation=performer.yaw if world_state else None,
            segmentation_colors=segmentation if self.tier == ORACLE else [],
            step_number=self.step_number,
            steps_on_lava=self.steps_on_lava,
            structural_object_list=structural,
            triggered_by_sequence_incorrect=self._trigger.incorrect,
        )

    def _room_dimensions(self) -> dict:
        dims = self.scene.room_dimensions
        return {"x": dims.x, "y": dims.y, "z": dims.z}

    def _goal_for_tier(self) -> GoalMetadata | None:
        """The goal, with target ids and images removed below the oracle/default tiers (as MCS does)."""
        if self.goal is None or self.tier in TIERS_WITH_WORLD_STATE:
            return self.goal
        metadata = dict(self.goal.metadata or {})
        for key in ("target", "target_1", "target_2"):
            if isinstance(metadata.get(key), dict):
                metadata[key] = {k: v for k, v in metadata[key].items() if k not in ("id", "image")}
        if "targets" in metadata:
            metadata["targets"] = []
        return replace(self.goal, metadata=metadata)
