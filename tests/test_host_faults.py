"""Faults in the host child (real processes): the environment recovers, replays, and leaves no process behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mcs_plugin import MCSEnvironment, SimulatorCrashed, SimulatorGaveUp, SimulatorTimeout
from tests.host_faults import FaultyEnvironment, fault_host
from tests.sim_scenes import ball, scene
from tests.test_environment import assert_same_output

CONFIG = {"metadata": "oracle", "width": 64, "height": 64}
SCENE = scene(ball(z=1.5), ball("ball2", x=0.6, z=2.0), name="faults")
ACTIONS = ["MoveAhead", "RotateLeft", "LookDown", "MoveAhead", "RotateRight", "MoveAhead"]
REPO = Path(__file__).resolve().parents[1]


# -- process bookkeeping through /proc (psutil is not a dependency) ---------------------------------------------
def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def is_alive(pid: int) -> bool:
    """Running (a zombie waiting for init to reap it is dead)."""
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def group_members(pgid: int) -> list[int]:
    """Live processes in process group `pgid`."""
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None and fields[0] not in ("Z", "X") and int(fields[2]) == pgid:
                members.append(int(entry))
    return members


def wait_until_gone(pids, timeout: float = 5.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while True:
        left = [p for p in pids if is_alive(p)]
        if not left or time.monotonic() > deadline:
            return left


def live_children(pid: int) -> list[int]:
    """Live direct children of `pid`."""
    return [int(e) for e in os.listdir("/proc") if e.isdigit() and (f := _stat(int(e))) is not None
            and f[0] not in ("Z", "X") and int(f[1]) == pid]


@pytest.fixture(scope="module")
def reference():
    """The uninterrupted run, inline."""
    with MCSEnvironment(config=CONFIG) as env:
        return [env.start_scene(SCENE)] + [env.step(a) for a in ACTIONS]


def check_episode(env: MCSEnvironment, reference) -> None:
    outputs = [env.start_scene(SCENE)] + [env.step(a) for a in ACTIONS]
    for a, b in zip(reference, outputs):
        assert_same_output(a, b)


def test_wire_frames_carry_arrays_as_raw_buffers():
    """Arrays never travel as numpy pickles (the child may run numpy 1.x, the parent 2.x)."""
    import io
    import threading

    import numpy as np

    from mcs_plugin.host import wire

    message = {"rgb": np.arange(24, dtype=np.uint8).reshape(2, 4, 3), "depth": np.ones((3, 2), np.float32)[:, ::2],
               "empty": np.zeros((0, 5)), "flag": np.bool_(True), "n": np.int64(7), "x": np.float32(0.5),
               "nested": [(1, "a"), {"b": np.array(2.5)}], "big": np.random.default_rng(1).random((400, 600))}
    pieces = wire.encode_frame(wire.plain(message))
    assert b"numpy" not in bytes(pieces[1])
    read_fd, write_fd = os.pipe()
    writer = threading.Thread(target=wire.write_frame, args=(write_fd, wire.plain(message)))
    writer.start()
    with io.FileIO(read_fd, "rb") as stream:
        received = wire.read_frame(stream, time.monotonic() + 10)
    writer.join()
    os.close(write_fd)
    for key in ("rgb", "depth", "empty", "big"):
        assert received[key].dtype == message[key].dtype and np.array_equal(received[key], message[key])
        assert received[key].flags.writeable
    assert received["flag"] is True and received["n"] == 7 and type(received["x"]) is float
    assert received["nested"][0] == (1, "a") and received["nested"][1]["b"] == 2.5


# -- one fault of each kind -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def faulty_env():
    """One hosted environment for the fault kinds; every child it launches starts a helper in its group."""
    env = FaultyEnvironment(config=CONFIG, faults={"helper_process": True, "launches": "all"}, process="subprocess",
                            step_timeout=3.0)  # generous: CI machines are busy
    yield env
    env.stop()


@pytest.mark.parametrize("fault", [
    {"kill_at_step": 3},                   # child SIGKILLed mid-episode
    {"exit_at_step": 3},                   # its pipe breaks under the parent
    {"raise_at_step": 3},                  # exception inside the backend
    {"hang_at_step": 3},                   # a step that never returns (step_timeout)
], ids=["kill", "broken-pipe", "raise", "hang"])
def test_each_fault_recovers_with_identical_observations(fault, faulty_env, reference):
    env = faulty_env
    restarts = env.restarts
    old = [env.pid, *env._handle.host.info["helper_pids"]]
    assert len(old) == 2 and all(is_alive(p) for p in old)
    env.inject_fault(**fault)  # step faults count step calls from now
    check_episode(env, reference)
    assert env.restarts - restarts == 1
    assert env.pid != old[0]
    assert wait_until_gone(old, 2.0) == [] and group_members(old[0]) == []  # the whole group died


def test_slow_start_past_start_timeout_recovers(reference):
    with FaultyEnvironment(config=CONFIG, faults={"slow_start": 60}, process="subprocess",
                           start_timeout=4.0) as env:  # constructor faults hit the first launch only
        assert env.restarts == 1  # the first child timed out while starting; the second is fine
        check_episode(env, reference)
        pid = env.pid
    assert wait_until_gone([pid], 2.0) == [] and group_members(pid) == []


def test_external_sigkill_mid_episode_recovers(reference):
    with FaultyEnvironment(config=CONFIG, faults={"helper_process": True}, process="subprocess") as env:
        outputs = [env.start_scene(SCENE), env.step(ACTIONS[0]), env.step(ACTIONS[1])]
        old = env.pid
        helper = env._handle.host.info["helper_pids"][0]
        os.kill(old, signal.SIGKILL)
        outputs += [env.step(a) for a in ACTIONS[2:]]
        assert env.restarts == 1 and env.pid != old
        assert wait_until_gone([helper], 2.0) == []  # the dead child's group went with it
    for a, b in zip(reference, outputs):
        assert_same_output(a, b)


def test_gives_up_after_max_restarts_then_starts_the_next_scene(reference):
    faults = {"kill_at_step": 1, "launches": [0, 1]}
    with FaultyEnvironment(config=CONFIG, faults=faults, process="subprocess", max_restarts=1) as env:
        env.start_scene(SCENE)
        with pytest.raises(SimulatorGaveUp) as info:
            env.step("MoveAhead")
        assert info.value.max_restarts == 1 and isinstance(info.value.last_error, SimulatorCrashed)
        assert info.value.scene_name == "faults"
        with pytest.raises(RuntimeError):  # the episode is over
            env.step("MoveAhead")
        check_episode(env, reference)  # launch 2 has no fault: the sampler just goes on
        assert env.restarts == 2


def test_unknown_fault_keys_fail_fast():
    with pytest.raises(ValueError, match="fault"):  # a typo must not silently test nothing
        FaultyEnvironment(faults={"kil_at_step": 1}, process="subprocess")


def test_timeouts_are_typed_errors_on_the_host_process():
    host = fault_host("embedded", {"config": {"render": False}}, {"hang_at_step": 1})
    host.start(30)
    host.call("start_scene", 10, scene=SCENE)
    started = time.monotonic()
    with pytest.raises(SimulatorTimeout):
        host.call("step", 0.5, action="MoveAhead", params={})
    assert time.monotonic() - started < 3 and not host.alive
    assert wait_until_gone([host.pid], 2.0) == []
    with pytest.raises(SimulatorCrashed, match="not running"):
        host.call("step", 5, action="MoveAhead", params={})


# -- many cycles, no leaks ----------------------------------------------------------------------------------
FAULT_CYCLE = [{"kill_at_step": 1}, {"raise_at_step": 1}, {"exit_at_step": 1}, "sigkill", {"hang_at_step": 1}]


def run_fault_cycles(cycles: int) -> None:
    before = set(live_children(os.getpid()))
    pids: set[int] = set()
    with FaultyEnvironment(config={"metadata": "oracle", "render": False},
                           faults={"helper_process": True, "launches": "all"},
                           process="subprocess", step_timeout=3.0, max_restarts=10) as env:
        env.start_scene(SCENE)
        expected = env.step("MoveAhead").position
        for cycle in range(cycles):
            if cycle % 10 == 0:  # a new episode now and then keeps the replays short
                env.start_scene(SCENE)
                expected = env.step("MoveAhead").position
            pids.add(env.pid)
            pids.update(env._handle.host.info["helper_pids"])
            fault = FAULT_CYCLE[cycle % len(FAULT_CYCLE)]
            if fault == "sigkill":
                os.kill(env.pid, signal.SIGKILL)
            else:
                env.inject_fault(**fault)
            out = env.step("RotateLeft")
            assert out is not None and out.return_status == "SUCCESSFUL"
            assert out.position == expected
            out = env.step("RotateRight")  # undo, so the expected position stays put
        assert env.restarts == cycles
        pids.add(env.pid)
        pids.update(env._handle.host.info["helper_pids"])
    assert wait_until_gone(pids, 5.0) == []
    assert all(group_members(p) == [] for p in pids)
    assert set(live_children(os.getpid())) <= before


def test_fault_cycles_leave_no_process_behind():
    run_fault_cycles(4)  # one of each kind but the hang (covered above)


@pytest.mark.slow
def test_100_fault_cycles_leave_no_process_behind():
    run_fault_cycles(100)


# -- the parent dies --------------------------------------------------------------------------------------
PARENT = textwrap.dedent("""
    import json, sys, time
    sys.path.insert(0, {repo!r})
    from tests.host_faults import FaultyEnvironment
    from tests.sim_scenes import scene
    env = FaultyEnvironment(config={{"render": False}}, faults={{"helper_process": True}}, process="subprocess",
                            step_timeout=600)
    env.start_scene(scene())
    print(json.dumps({{"pid": env.pid, "helpers": env._handle.host.info["helper_pids"]}}), flush=True)
    if {hang}:
        env.inject_fault(hang_at_step=1)
        env.step("MoveAhead")  # blocks: the child hangs in this step
    time.sleep(600)
""")


def test_a_stopped_child_dies_with_its_sigkilled_parent():
    """A SIGSTOPped child runs none of its own safeguards: the reaper beside it kills its group."""
    parent = subprocess.Popen([sys.executable, "-c", PARENT.format(repo=str(REPO), hang=False)],
                              stdout=subprocess.PIPE, text=True)
    try:
        info = json.loads(parent.stdout.readline())
        pids = [info["pid"], *info["helpers"]]
        os.kill(info["pid"], signal.SIGSTOP)
        parent.kill()
        parent.wait(timeout=10)
        assert wait_until_gone(pids, 5.0) == [], "a stopped child outlived its SIGKILLed parent"
        assert group_members(info["pid"]) == []
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        for pid in [p for p in locals().get("pids", []) if is_alive(p)]:
            os.kill(pid, signal.SIGKILL)  # do not leave a stopped process behind if the test failed


@pytest.mark.parametrize("hang", [False, True], ids=["idle-child", "child-hung-in-step"])
def test_killing_the_parent_leaves_no_child_alive(hang):
    parent = subprocess.Popen([sys.executable, "-c", PARENT.format(repo=str(REPO), hang=hang)],
                              stdout=subprocess.PIPE, text=True)
    try:
        info = json.loads(parent.stdout.readline())
        pids = [info["pid"], *info["helpers"]]
        assert all(is_alive(p) for p in pids)
        time.sleep(0.3 if hang else 0.0)
        parent.kill()
        parent.wait(timeout=10)
        assert wait_until_gone(pids, 5.0) == [], "children outlived their SIGKILLed parent"
        assert group_members(info["pid"]) == []
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
