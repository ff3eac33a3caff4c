"""The tool skill's per-episode driver: when a retrieval target is stranded in lava and tools lie about, plan a tool
move (`tools.plan_tool_moves`; else bring a tool into place, `plan_placing_moves`, or shove one within reach with
another, `plan_freeing_moves`, and plan again after), walk to the tool, then MoveObject and follow until the target is
out; slide a tool off a target it dragged out inside its box, and walk near the pickup place before fetching takes
over."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mcs_plugin.experts.boxes import Box
from mcs_plugin.experts.goals import NearGoal
from mcs_plugin.experts.poses import pose_of
from mcs_plugin.experts.tools import (
    CLEAR_MARGIN, MOVED, NO_CONTACT_SLACK, STEP, TOOL_SHAPE, FloorMap, ToolPlan, aim_box, enclosing_tool, floor_map,
    pickup_spot, plan_clearing_moves, plan_freeing_moves, plan_placing_moves, plan_tool_moves, stranded, tool_aim,
)
from mcs_plugin.geometry import angle_difference

ActionChoice = tuple[str, dict]
FOLLOW = {1: "MoveAhead", -1: "MoveBack"}  # the move that keeps the performer's distance to a pushed / pulled tool
MAX_PLANS = 12  # plans made per episode before the skill gives up
STAND_TOLERANCE = 0.06  # metres from a band's standing point that will do
SLIDE_DRAG = 0.3  # metres a target may move along while a tool slides before the slide turns the other way
WALK_UP_NEAR = 0.8  # metres from the pickup place within which fetching takes over after a tool move


class ToolSkill:
    """Moves a tool so that it shoves a stranded target out of lava; `next_action` returns None when the skill has
    nothing to do (no tools, the target is not stranded or can be picked up as it is, or no plan works)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget the episode."""
        self.plan: ToolPlan | None = None
        self.floor: FloorMap | None = None  # where the performer can walk, tools and target left out
        self.floor_target = ""
        self.failed: set[tuple] = set()  # (tool id, heading) of failed plans; (tool id, "face", face) of open faces
        self.plans = 0
        self.band = 0
        self.working = False
        self.travelled = 0.0
        self.target_start: np.ndarray | None = None
        self.shoved_start: np.ndarray | None = None  # where the other tool a plan shoves lay when the plan began
        self.following = True
        self.last: tuple[int, str] | None = None  # (step, action) of the skill's last choice
        self.used: ToolPlan | None = None  # the last plan that moved a tool
        self.slide = 0  # MoveObject's `lateral` while sliding a tool off the target (0: not chosen yet)
        self.slide_start: np.ndarray | None = None  # where the target was when the slide (or its way) was chosen
        self.slide_centre: np.ndarray | None = None  # where the tool's centre was when the slide began
        self.clearing: str | None = None  # id of the tool whose box holds a target not stranded (plans take it off)

    def next_action(self, expert: Any, output, target) -> ActionChoice | None:
        """The skill's action at this step, or None to let the expert fetch the target as usual."""
        if not any(o.shape == TOOL_SHAPE for o in output.object_list) or \
                (expert.allowed is not None and "MoveObject" not in expert.allowed):
            return None
        if self.floor is None or self.floor_target != target.uuid:
            self.floor, self.floor_target = floor_map(output, target, expert.graph_for(output)), target.uuid
        step = int(output.step_number)
        fresh = self.last is not None and step == self.last[0] + 1
        last_action = self.last[1] if fresh else None
        self.last = None
        if not stranded(self.floor, target):
            enclosing = enclosing_tool(output, target) if self.used is None or self.clearing is not None else None
            if enclosing is not None and self.clearing is None:
                self.clearing, self.plan = enclosing.uuid, None
            elif enclosing is None and self.clearing is not None:
                self.clearing, self.plan = None, None
            if self.clearing is not None:  # a target inside a tool's box (a hook's inside), no lava: move the tool off
                choice = self._choose(expert, output, target, last_action)
            else:
                self.plan = None
                choice = None
                if self.used is not None:
                    choice = self._slide_off(expert, output, target, last_action) or \
                        self._walk_up(expert, output, target)
        else:
            choice = self._choose(expert, output, target, last_action)
        if choice is not None:
            self.last = (step, choice[0])
        return choice

    def _choose(self, expert: Any, output, target, last_action: str | None) -> ActionChoice | None:
        if self.plan is None and not self._new_plan(expert, output, target):
            return None
        plan = self.plan
        kind = ("tool", plan.tool)
        tool = next((o for o in output.object_list if o.uuid == plan.tool), None)
        if tool is None:
            self.plan = None
            return None
        status = str(output.return_status)
        if self.working and last_action == "MoveObject":
            if status != "SUCCESSFUL" or output.resolved_object != plan.tool:
                return self._next_band(expert, output, target)
            self.travelled += STEP
            moved = float(np.hypot(*(self._target_xz(target) - self.target_start)))
            shoved = self._shoved(output, plan) if plan.shoves else moved
            if self.travelled > plan.contact + NO_CONTACT_SLACK and shoved < MOVED or \
                    (self.clearing is not None or plan.placing) and moved > MOVED:
                # the tool went past the target without taking it along (an open side of its box, passed through
                # from now on), or a tool that was to be moved off the target or only into place takes it along:
                # another plan
                self.failed.add((plan.tool, round(self._heading(plan)) % 360))
                if shoved < MOVED and plan.face >= 0:  # the face of the tool (or of the one shoved) to meet
                    self.failed.add((plan.shoves or plan.tool, "face", plan.face))
                self.plan = None
                return self._choose(expert, output, target, None)
            if plan.placing and self.travelled >= plan.travel - 1e-6:
                self.plan = None  # the tool is in place: the plan that takes over is made from here
                return self._choose(expert, output, target, None)
            follow = self._follow(output, plan)
            if follow is not None:
                return follow
        elif self.working and last_action in FOLLOW.values() and status != "SUCCESSFUL":
            self.following = False
        pose = pose_of(output)
        band, stand_at = plan.bands[self.band]
        if not self.working:
            # walk to the band's standing point, then turn to the heading (a search for poses at one heading whose
            # crosshair hits a small part of the tool is far costlier than these two steps)
            stand = NearGoal(stand_at, stand_at, STAND_TOLERANCE)
            if not stand(pose):
                choice = expert.navigate(output, stand, ("tool stand", plan.tool, self.band))
                if choice is None:
                    expert.reason = ""
                    return self._next_band(expert, output, target)
                return choice
            turn = angle_difference(plan.yaw, pose.yaw)
            if abs(turn) >= 1.0:
                return ("RotateRight" if turn > 0 else "RotateLeft"), {}
        goal = tool_aim(output, aim_box(Box.from_metadata(tool), plan, band), expert._bad[kind], {plan.tool})
        tilt = goal.best_tilt(pose)
        if tilt is None:
            if not self.working:
                return self._next_band(expert, output, target)
            # the tool slipped out of reach or out of the crosshair: plan afresh from here
            self.plan = None
            return self._choose(expert, output, target, None)
        expert._kind = kind
        if abs(tilt - float(output.head_tilt)) > 1e-3:
            return ("LookDown", {}) if tilt > float(output.head_tilt) else ("LookUp", {})
        self.working = True
        self.used = plan
        expert._plan = None
        return "MoveObject", {"straight": plan.straight}

    def _slide_off(self, expert: Any, output, target, last_action: str | None) -> ActionChoice | None:
        """A target dragged out inside a tool's box (a hook's inside) cannot be picked up: navigation and aims take the
        box as solid. Slide the tool sideways (MoveObject `lateral`), toward the side the crosshair holds (its
        material) and away from the target, stepping along, until its box clears the target; the other way if the
        target goes along."""
        plan = self.used
        tool = next((o for o in output.object_list if o.uuid == plan.tool), None)
        if tool is None:
            return None
        box = Box.from_metadata(tool)
        t = self._target_xz(target)
        if not box.contains((t[0], box.center[1], t[1]), margin=CLEAR_MARGIN):
            return None
        kind = ("tool", plan.tool)
        status = str(output.return_status)
        if last_action == "MoveObject" and status == "SUCCESSFUL" and self.slide:
            if float(np.hypot(*(t - self.slide_start))) > SLIDE_DRAG:  # the target goes along: the other way
                self.slide, self.slide_start = -self.slide, t
            else:
                pose = pose_of(output)
                right = np.array([math.cos(math.radians(pose.yaw)), -math.sin(math.radians(pose.yaw))])
                nxt = np.array([pose.x, pose.z]) + STEP * self.slide * right
                if self.floor.clear(nxt[None])[0]:
                    return ("MoveRight" if self.slide > 0 else "MoveLeft"), {}
        d = np.array(plan.direction)
        n = np.array([d[1], -d[0]])
        band = plan.bands[min(self.band, len(plan.bands) - 1)][0]
        centre = np.array([box.center[0], box.center[2]])
        if self.slide == 0:
            side = 1 if band >= float(t @ n) else -1  # the crosshair's side of the tool, away from the target
            self.slide, self.slide_start = side * plan.straight, t  # `lateral` moves along n for a push, -n for a pull
            self.slide_centre = centre
        # the crosshair stays on the part of the tool it held (its band, moved with the tool)
        band += float((centre - self.slide_centre) @ n)
        goal = tool_aim(output, aim_box(box, plan, band), expert._bad[kind], {plan.tool})
        pose = pose_of(output)
        tilt = goal.best_tilt(pose)
        if tilt is None:
            return None
        expert._kind = kind
        if abs(tilt - float(output.head_tilt)) > 1e-3:
            return ("LookDown", {}) if tilt > float(output.head_tilt) else ("LookUp", {})
        return "MoveObject", {"lateral": self.slide, "straight": 0}

    def _walk_up(self, expert: Any, output, target) -> ActionChoice | None:
        """After a tool brought the target out: walk near the place it can be picked up from (a short position search
        where the pickup search, heading and aim included, would cross the room), then leave the rest to fetching."""
        pose = pose_of(output)
        spot = pickup_spot(self.floor, target, pose)
        if spot is None or math.hypot(spot[0] - pose.x, spot[1] - pose.z) <= WALK_UP_NEAR:
            return None
        choice = expert.navigate(output, NearGoal(spot, spot, WALK_UP_NEAR / 2), ("tool walk up", target.uuid))
        expert.reason = ""
        return choice

    def _new_plan(self, expert: Any, output, target) -> bool:
        """Plan a tool move; False when none works."""
        if self.plans >= MAX_PLANS:
            return False
        graph = expert.graph_for(output)
        clearing = next((o for o in output.object_list if o.uuid == self.clearing), None)
        if clearing is not None:
            plans = plan_clearing_moves(output, target, clearing, graph, self.floor, self.failed)
        else:
            # a tool that shoves the target out; else one brought into place first; else one moved within reach by
            # another (the next plans take over from there)
            plans = plan_tool_moves(output, target, graph, self.floor, self.failed) or \
                plan_placing_moves(output, target, graph, self.floor, self.failed) or \
                plan_freeing_moves(output, target, graph, self.floor, self.failed)
        self.plans += 1
        if not plans:
            return False
        self.plan = plans[0]
        self.band, self.working, self.travelled, self.following = 0, False, 0.0, True
        self.target_start = self._target_xz(target)
        self.shoved_start = self._shoved_xz(output, self.plan)
        return True

    def _shoved(self, output, plan: ToolPlan) -> float:
        """How far the other tool a plan shoves has moved since the plan began."""
        return float(np.hypot(*(self._shoved_xz(output, plan) - self.shoved_start)))

    @staticmethod
    def _shoved_xz(output, plan: ToolPlan) -> np.ndarray:
        """Where the other tool a plan shoves lies (the origin for a plan that shoves the target)."""
        other = next((o for o in output.object_list if o.uuid == plan.shoves), None) if plan.shoves else None
        return ToolSkill._target_xz(other) if other is not None else np.zeros(2)

    def _next_band(self, expert: Any, output, target) -> ActionChoice | None:
        """Aim at the next part of the tool's width (the last one hit nothing or something else); when none is left,
        give the plan up."""
        self.band += 1
        self.working = False
        if self.plan is None or self.band >= len(self.plan.bands):
            if self.plan is not None:
                self.failed.add((self.plan.tool, round(self._heading(self.plan)) % 360))
            self.plan = None
        return self._choose(expert, output, target, None)

    def _follow(self, output, plan: ToolPlan) -> ActionChoice | None:
        """The move after a successful MoveObject that keeps the performer's distance to the tool, while it stays on
        clear floor (None: stay, and push or pull on without following while the tool is in reach)."""
        if not self.following:
            return None
        pose = pose_of(output)
        nxt = np.array([[pose.x + STEP * plan.direction[0], pose.z + STEP * plan.direction[1]]])
        if not self.floor.clear(nxt)[0]:
            self.following = False
            return None
        return FOLLOW[plan.straight], {}

    @staticmethod
    def _heading(plan: ToolPlan) -> float:
        return math.degrees(math.atan2(plan.direction[0], plan.direction[1])) % 360.0

    @staticmethod
    def _target_xz(target) -> np.ndarray:
        return np.array([float(target.position.get("x", 0.0)), float(target.position.get("z", 0.0))])
