"""The real-MCS backend: create_controller across MCS versions, its quirks, StepMetadata conversion, the display.

Tests marked with `real_mcs` run machine_common_sense 0.7.4's real Controller (in the Python 3.10 venv
.venv-mcs, see scripts/setup_unity_backend.sh) with its Unity connection replaced at the ai2thor boundary
(tests/fake_ai2thor.py); they skip with the reason when that venv is not there.
"""

from __future__ import annotations

import enum
import logging
import os
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mcs_plugin import MCSEnvironment, SimulatorGaveUp, SimulatorUnavailable
from mcs_plugin.host.display import DisplayUnavailable, resolve_display
from mcs_plugin.host.errors import SceneLost
from mcs_plugin.mcs import StepMetadata
from mcs_plugin.unity import adapter, convert
from tests.host_faults import FaultyEnvironment
from tests.sim_scenes import DATA

REPO = Path(__file__).resolve().parents[1]
MCS_PYTHON = Path(os.environ.get("MCS_PLUGIN_UNITY_PYTHON") or REPO / ".venv-mcs" / "bin" / "python")
FAKE_UNITY = f"{Path(__file__).with_name('fake_ai2thor.py')}:create_controller"
SAMPLE = DATA / "scenes" / "retrieval_goal_example_with_soccer_ball.json"


def _real_mcs_reason() -> str | None:
    if not MCS_PYTHON.exists():
        return f"no machine_common_sense venv at {MCS_PYTHON} (run scripts/setup_unity_backend.sh)"
    probe = subprocess.run(  # cheap: finds the packages without importing them
        [str(MCS_PYTHON), "-c", "import importlib.util as u, sys; missing = [m for m in ('machine_common_sense', "
         "'ai2thor', 'portalocker') if u.find_spec(m) is None]; sys.exit(', '.join(missing) or None)"],
        capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        return f"missing in {MCS_PYTHON}: {probe.stderr.strip()} (run scripts/setup_unity_backend.sh)"
    return None


REAL_MCS_SKIP = _real_mcs_reason()
real_mcs = pytest.mark.skipif(REAL_MCS_SKIP is not None, reason=REAL_MCS_SKIP or "")


# -- create_controller across versions (a stand-in module above the library's boundary) ------------------------
def _module(name: str, **attributes) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    return module


def test_create_controller_04_and_later_gets_config_and_app_path():
    calls = []

    def create_controller(config_file_or_dict=None, unity_app_file_path=None, unity_cache_version=None):
        calls.append((config_file_or_dict, unity_app_file_path))
        return "controller"

    mcs = _module("fake_mcs_07", create_controller=create_controller)
    assert adapter.create_mcs_controller(mcs, {"metadata": "level2"}, "/apps/mcs.x86_64") == "controller"
    assert adapter.create_mcs_controller(mcs, None, None) == "controller"
    assert calls == [({"metadata": "level2"}, "/apps/mcs.x86_64"), ({}, None)]


def test_create_controller_03_style_gets_app_path_first_and_legacy_flags():
    calls = []

    def create_controller(unity_app_file_path, debug=False, enable_noise=False, seed=None, depth_maps=None,
                          object_masks=None, history_enabled=True, config_file_path=None):
        calls.append(dict(path=unity_app_file_path, enable_noise=enable_noise, seed=seed, depth_maps=depth_maps,
                          object_masks=object_masks, config_file_path=config_file_path))
        return "controller-03"

    mcs = _module("fake_mcs_03", create_controller=create_controller)
    config = {"metadata": "oracle", "disable_object_masks": True, "noise_enabled": "true", "seed": 7}
    assert adapter.create_mcs_controller(mcs, config, "/apps/old.x86_64") == "controller-03"
    call = calls[0]
    assert call["path"] == "/apps/old.x86_64" and call["enable_noise"] is True and call["seed"] == 7
    assert call["depth_maps"] is True and call["object_masks"] is False
    assert "metadata = oracle" in Path(call["config_file_path"]).read_text()
    with pytest.raises(SimulatorUnavailable, match="unity_app_file_path"):
        adapter.create_mcs_controller(mcs, config, None)


def test_create_controller_on_the_legacy_mcs_class():
    class MCS:
        @staticmethod
        def create_controller(unity_app_file_path):
            return ("legacy", unity_app_file_path)

    mcs = _module("fake_mcs_02", MCS=MCS)
    assert adapter.create_mcs_controller(mcs, None, "/apps/v02") == ("legacy", "/apps/v02")


def test_create_controller_none_becomes_an_error_with_the_logged_reason():
    def create_controller(config_file_or_dict=None, unity_app_file_path=None):
        try:
            raise AssertionError("Invalid DISPLAY :0.0 - cannot find X server with xdpyinfo")
        except AssertionError as error:
            logging.getLogger("fake_mcs_none").error("Exception in create_controller()", exc_info=error)
        return None

    with pytest.raises(adapter.UnityStartError, match="returned None.*Invalid DISPLAY"):
        adapter.create_mcs_controller(_module("fake_mcs_none", create_controller=create_controller), {}, None)


# -- quirks, on a controller with machine_common_sense's observable behaviour ---------------------------------
QUIRKY_CONTROLLER = '''
import types


class QuirkyController:
    """Behaves as MCS 0.7.4 Controller does at its surface ."""

    def __init__(self, last_step=2):
        self.last_step, self.step_number = last_step, 0
        self._end_scene_called = False
        self.ended_with = None

    def start_scene(self, config_data):
        self.step_number, self._end_scene_called = 0, False
        return types.SimpleNamespace(step_number=0, return_status="SUCCESSFUL")

    def step(self, action, **kwargs):
        if self.step_number == self.last_step:
            return None
        if action == "EndScene":
            self.end_scene()
            raise SystemExit(0)
        if action == "Interrupted":
            raise KeyboardInterrupt
        if action not in ("MoveAhead", "Pass"):
            raise ValueError(f"{action}-{kwargs} not in action list")
        self.step_number += 1
        return types.SimpleNamespace(step_number=self.step_number, return_status="SUCCESSFUL")

    def end_scene(self, rating=None, score=None, report=None):
        if self._end_scene_called:
            raise RuntimeError("end_scene called twice with the same scene")
        self._end_scene_called, self.ended_with = True, (rating, score)

    def stop_simulation(self):
        pass


def make(config=None, unity_app_file_path=None):
    return QuirkyController(last_step=int((config or {}).get("last_step", 2)))
'''


def quirky_backend(tmp_path, last_step: int = 2) -> adapter.UnityBackend:
    """A UnityBackend over a controller_factory file (the "path.py:function" form)."""
    factory = tmp_path / "quirky_factory.py"
    factory.write_text(QUIRKY_CONTROLLER)
    return adapter.UnityBackend(config={"last_step": last_step}, controller_factory=f"{factory}:make")


def test_quirks_end_scene_system_exit_and_last_step_none(tmp_path):
    backend = quirky_backend(tmp_path)
    backend.start_scene({"name": "s"})
    assert backend.step("MoveAhead", {}).step_number == 1
    with pytest.raises(ValueError):
        backend.step("Fly", {})
    assert backend.step("MoveAhead", {}).step_number == 2
    assert backend.step("MoveAhead", {}) is None  # after last_step
    backend.start_scene({"name": "s"})
    assert backend.step("EndScene", {}) is None  # SystemExit(0) swallowed: the scene ended
    assert backend.controller._end_scene_called


def test_quirks_watchdog_interrupt_becomes_scene_lost(tmp_path):
    backend = quirky_backend(tmp_path, last_step=10)
    backend.start_scene({"name": "s"})
    with pytest.raises(SceneLost):  # interrupt_main() landed inside a call
        backend.step("Interrupted", {})
    backend.start_scene({"name": "s"})
    backend.controller.end_scene(rating=None, score=-1)  # what the watchdog does before interrupt_main()
    with pytest.raises(SceneLost, match="watchdog"):
        backend.step("MoveAhead", {})
    backend.start_scene({"name": "s"})
    assert backend.end_scene("implausible", 0.25) == {"rating": 0.0, "score": 0.25}
    assert backend.controller.ended_with == (0.0, 0.25)
    with pytest.raises(ValueError):
        adapter.rating_of("maybe")


# -- conversion of an MCS StepMetadata ---------------------------------------------------------------------
class MCSReturnStatus(enum.Enum):
    SUCCESSFUL = "SUCCESSFUL"


def test_conversion_from_an_mcs_step_metadata():
    rgb = np.random.default_rng(0).integers(0, 255, (40, 60, 3), dtype=np.uint8)
    mask = np.zeros((40, 60, 3), np.uint8)
    obj = types.SimpleNamespace(uuid="ball", segment_color={"r": 1, "g": 2, "b": 3}, position={"x": 1.0},
                                held=np.bool_(False), distance=np.float64(2.5), material_list=["RUBBER"])
    goal = types.SimpleNamespace(action_list=[["EndHabituation,xPosition=1", "Pass"]], category="retrieval",
                                 metadata={"target": {"id": "ball"}}, last_step=np.int64(100))
    output = types.SimpleNamespace(
        image_list=[Image.fromarray(rgb)], object_mask_list=[Image.fromarray(mask)],
        depth_map_list=[np.full((40, 60), 3.5, np.float32)], object_list=[obj], structural_object_list=[],
        goal=goal, return_status=MCSReturnStatus.SUCCESSFUL, action_list=[("MoveAhead", {}), ("Pass", {})],
        camera_aspect_ratio=(60, 40), holes=[(1.0, 2.0)], position={"x": 0.0, "y": 0.76, "z": 0.0},
        step_number=np.int64(3), reward=np.float32(-0.003), head_tilt=10.0)
    ours = convert.to_step_metadata(output)
    assert isinstance(ours, StepMetadata)
    assert np.array_equal(np.asarray(ours.image_list[0]), rgb) and ours.image_list[0].mode == "RGB"
    assert ours.depth_map_list[0].dtype == np.float32 and ours.depth_map_list[0].flags.writeable
    assert ours.return_status == "SUCCESSFUL" and ours.step_number == 3 and type(ours.step_number) is int
    assert ours.object_list[0].segment_color == {"r": 1, "g": 2, "b": 3} and ours.object_list[0].held is False
    assert ours.goal.target_ids() == ["ball"] and ours.goal.last_step == 100
    assert ours.goal.action_list[0][0] == ("EndHabituation", {"xPosition": 1})
    assert ours.action_list == [("MoveAhead", {}), ("Pass", {})] and ours.camera_aspect_ratio == (60, 40)
    assert ours.holes == [(1.0, 2.0)] and ours.pose == "UNDEFINED"


# -- display ---------------------------------------------------------------------------------------------------
def test_display_given_env_private_xvfb_or_a_clear_error(tmp_path, monkeypatch):
    assert resolve_display(":7").name == ":7" and resolve_display(":7").process is None
    assert resolve_display(None, {"DISPLAY": ":3"}).name == ":3"
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(DisplayUnavailable, match="apt-get install xvfb"):
        resolve_display(None, {})
    fake_xvfb = tmp_path / "Xvfb"  # honours -displayfd like the real one, then idles
    fake_xvfb.write_text(f"#!{sys.executable}\nimport os, sys, time\n"
                         "fd = int(sys.argv[sys.argv.index('-displayfd') + 1])\n"
                         "os.write(fd, b'42\\n'); time.sleep(60)\n")
    fake_xvfb.chmod(0o755)
    display = resolve_display(None, {})
    assert display.name == ":42" and display.process.poll() is None
    display.stop()
    assert display.process is None


def test_unity_backend_without_the_library_is_unavailable_at_once():
    """This test venv (Python >= 3.11) has no machine_common_sense: a clear error, no restarts."""
    started = time.monotonic()
    with pytest.raises(SimulatorUnavailable, match="setup_unity_backend.sh"):
        MCSEnvironment("unity", {"metadata": "oracle"}, python_executable=sys.executable, display=":0",
                       max_restarts=5)
    assert time.monotonic() - started < 20


# -- the real library (machine_common_sense 0.7.4 in its own Python 3.10 venv) -------------------------------
CONFIG = {"metadata": "oracle", "history_enabled": False, "size": 450}


@pytest.fixture(scope="module")
def unity_env():
    if REAL_MCS_SKIP:
        pytest.skip(REAL_MCS_SKIP)
    env = MCSEnvironment("unity", CONFIG, python_executable=str(MCS_PYTHON), controller_factory=FAKE_UNITY,
                         step_timeout=30)
    yield env
    env.close()


@real_mcs
def test_real_library_controller_through_the_host(unity_env):
    env = unity_env
    out = env.start_scene(SAMPLE)
    assert env._handle.host.info["mcs_version"] == "0.7.4" and env._handle.host.info["python"].startswith("3.10")
    assert isinstance(out, StepMetadata) and out.step_number == 0 and out.return_status == "SUCCESSFUL"
    assert out.image_list[0].size == (450, 300) and out.depth_map_list[0].shape == (300, 450)
    assert out.depth_map_list[0][0, 0] == pytest.approx((0.02 + 0.005) * 150, rel=1e-5)  # MCS's x clipping far
    assert [o.uuid for o in out.object_list] == ["soccer_ball"] and out.goal.target_ids() == ["soccer_ball"]
    assert out.object_list[0].distance == pytest.approx(out.object_list[0].distance_in_steps)
    for _ in range(10):
        out = env.step("MoveAhead")
    assert out.position["z"] == pytest.approx(1.0) and out.step_number == 10
    assert out.reward == pytest.approx(-0.01)  # MCS 0.7.4's reward, computed by the library
    out = env.step("PickupObject", objectId="soccer_ball")
    assert out.return_status == "NOT_PICKUPABLE"  # the sample's ball has no "pickupable" key
    with pytest.raises(ValueError, match="not in"):  # the library's ValueError, unchanged, no restart
        env.step("Fly")
    out = env.step("RotateRight")
    assert out.rotation == pytest.approx(10.0)
    assert env.step("EndScene") is None  # the library raised SystemExit(0)
    assert env.restarts == 0


@real_mcs
def test_real_library_tiers_and_last_step(unity_env):
    env = unity_env
    scene = {"name": "tiny", "goal": {"category": "retrieval", "last_step": 2,
                                       "metadata": {"target": {"id": "ball"}}},
             "objects": [{"id": "ball", "type": "soccer_ball", "pickupable": True,
                          "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.1, "z": 0.5}}]}]}
    env.start_scene(scene)
    env.step("MoveAhead")
    out = env.step("PickupObject", objectId="ball")
    assert out.return_status == "SUCCESSFUL" and out.reward == pytest.approx(1 - 0.001)
    assert env.step("Pass") is None  # after last_step
    assert env.end_scene(1, 0.5) == {"choice": 1, "confidence": 0.5, "answer": None, "correct": None, "steps": 2}
    env2 = MCSEnvironment("unity", {**CONFIG, "metadata": "level2"}, python_executable=str(MCS_PYTHON),
                          controller_factory=FAKE_UNITY)
    with env2:
        out = env2.start_scene(scene)
        assert out.object_list == [] and out.position is None and "id" not in out.goal.metadata["target"]


@real_mcs
def test_real_library_recovers_from_a_crash_and_from_its_watchdog():
    config = {**CONFIG, "timeout": 1}  # MCS's watchdog: 1 s without a step
    with FaultyEnvironment("unity", config, faults={"kill_at_step": 3}, python_executable=str(MCS_PYTHON),
                           controller_factory=FAKE_UNITY, step_timeout=30) as env:
        first = env.pid
        env.start_scene(SAMPLE)
        outs = [env.step(a) for a in ("MoveAhead", "RotateLeft", "MoveAhead", "MoveAhead")]  # killed at the 3rd
        assert env.restarts == 1 and env.pid != first
        assert outs[-1].position["z"] == pytest.approx(0.1 + 0.2 * np.cos(np.radians(10)), abs=1e-5)
        assert outs[-1].step_number == 4
        pid = env.pid
        time.sleep(2.2)  # MCS's inactivity watchdog (timeout 1 s) ends the scene and interrupts the child
        out = env.step("MoveAhead")
        assert env.restarts == 2 and env.pid == pid  # replayed in the same child: no Unity restart
        assert out.step_number == 5 and out.position["z"] == pytest.approx(0.1 + 0.3 * np.cos(np.radians(10)), abs=1e-5)


@real_mcs
def test_real_create_controller_failure_reports_the_reason():
    with pytest.raises(SimulatorGaveUp) as info:
        MCSEnvironment("unity", CONFIG, python_executable=str(MCS_PYTHON), unity_app_file_path="/bin/true",
                       display=":99", max_restarts=0)
    message = str(info.value.last_error)
    assert "create_controller returned None" in message and "DISPLAY" in message
