"""Conformance runner: comparison rules (no simulator), the runner with a fake controller, and end to end."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from mcs_plugin import conformance
from mcs_plugin.conformance import (
    FieldFailure, TestResult, TierResult, compare_step, discover_tests, format_report, replayed_entry, run_corpus,
    run_test, tier_config, to_json, values_match,
)

CORPUS = Path(__file__).parent / "data" / "conformance"


def obj(uuid: str, **fields) -> SimpleNamespace:
    base = dict(uuid=uuid, direction={"x": 0.0, "y": 0.0, "z": 1.0}, distance_in_world=1.0, held=False, mass=1.0,
                material_list=[], position={"x": 0.0, "y": 0.0, "z": 1.0}, rotation={"x": 0.0, "y": 0.0, "z": 0.0},
                shape="ball", state_list=[], texture_color_list=[], visible=True, is_open=False, openable=False,
                locked=False, associated_with_agent="", simulation_agent_held_object="",
                simulation_agent_is_holding_held_object=False)
    base.update(fields)
    return SimpleNamespace(**base)


def step(**fields) -> SimpleNamespace:
    base = dict(action_list=[], camera_height=0.762, haptic_feedback={"on_lava": False}, head_tilt=0.0, holes=None,
                lava=None, object_list=[], position={"x": 0.0, "y": 0.762, "z": 0.0}, return_status="SUCCESSFUL",
                resolved_object=None, resolved_receptacle=None, reward=-0.001, rotation=0.0, room_dimensions=None,
                step_number=1, physics_frames_per_second=20, structural_object_list=[],
                triggered_by_sequence_incorrect=False)
    base.update(fields)
    return SimpleNamespace(**base)


def fields(failures: list[FieldFailure]) -> list[str]:
    return [f.field for f in failures]


# -- values_match -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("expected, actual, ok", [
    (1.0, 1.009, True),            # abs_tol 0.01
    (1.0, 1.02, False),
    (100.0, 100.9, True),          # rel_tol 0.01
    (100.0, 101.5, False),
    (0, 0.0, True),
    ([0.0, -0.01], -0.005, True),  # range, either order
    ([0.0, -0.01], 0.0, True),     # closed
    ([0.0, -0.01], -0.01, True),
    ([0.0, -0.01], 0.001, False),
    ([10, 11], 12, False),
    (None, None, True),
    (None, 0.0, False),
    (0.0, None, False),
    (True, True, True),
    (False, 0, False),             # booleans are not numbers
    (1, True, False),
    ("SUCCESSFUL", "SUCCESSFUL", True),
    ("SUCCESSFUL", "OBSTRUCTED", False),
    ([[0, 1], [2, 3]], [[0.0, 1.0], [2.0, 3.0]], True),
    ([[0, 1]], [[0.0, 1.0], [2.0, 3.0]], False),
    ({"x": 10, "y": 3, "z": 10}, {"x": 10.0, "y": 3.0, "z": 10.0}, True),
    ({"x": 10}, {"x": 10, "y": 3}, False),
    (["RUBBER"], ["RUBBER"], True),
    (["RUBBER"], ["WOOD"], False),
])
def test_values_match(expected, actual, ok):
    assert values_match(expected, actual) is ok


# -- compare_step -------------------------------------------------------------------------------------------
def test_matching_step_has_no_failures():
    expected = {"camera_height": 0.762, "head_tilt": 0, "objects_count": 0, "position_x": 0.0, "position_z": 0.0,
                "return_status": "SUCCESSFUL", "rotation_y": 0.0, "step_number": 1, "structural_objects_count": 0,
                "haptic_feedback": {"on_lava": False}, "holes": None, "resolved_object": None, "reward": -0.001}
    assert compare_step(expected, step()) == []


def test_head_tilt_and_rotation_are_rounded():
    actual = step(head_tilt=29.6, rotation=-10.2)
    assert compare_step({"head_tilt": 30, "rotation_y": 350}, actual) == []
    failures = compare_step({"head_tilt": 29, "rotation_y": 340}, actual, step=4)  # rel_tol: 350 ~ 347..353
    assert fields(failures) == ["head_tilt", "rotation_y"]
    assert failures[0].step == 4 and failures[0].actual == 30 and failures[1].actual == 350
    assert compare_step({"rotation_y": 0}, step(rotation=359.7)) == []  # round(359.7) % 360 == 0


def test_none_expected_and_none_actual():
    actual = step(position=None, rotation=None, room_dimensions=None)
    assert compare_step({"position_x": None, "position_z": None, "rotation_y": None, "room_dimensions": None},
                        actual) == []
    failures = compare_step({"position_x": None, "rotation_y": None}, step())
    assert fields(failures) == ["position_x", "rotation_y"]
    assert fields(compare_step({"position_x": 0.0}, actual)) == ["position_x"]


def test_counts_and_tuples():
    actual = step(object_list=[obj("a"), obj("b")], holes=[(0.0, 1.0), (2.0, 2.0)],
                  action_list=[("EndScene", {})])
    assert compare_step({"objects_count": 2, "holes": [[0, 1], [2, 2]], "action_list": [["EndScene", {}]]},
                        actual) == []
    assert fields(compare_step({"objects_count": 1, "structural_objects_count": 1}, actual)) == [
        "objects_count", "structural_objects_count"]


def test_range_on_step_field():
    assert compare_step({"position_z": [-1, -0.089]}, step(position={"x": 0, "y": 0.762, "z": -0.5})) == []
    assert fields(compare_step({"position_z": [-1, -0.089]}, step(position={"x": 0, "y": 0.762, "z": 0.0}))) == [
        "position_z"]


def test_objects_matched_by_id_and_missing_skipped():
    actual = step(object_list=[obj("ball", position={"x": 1.0, "y": 0.1, "z": 2.0}, distance_in_world=2.3),
                               obj("box", held=True)],
                  structural_object_list=[obj("wall_back", shape="structural", direction={"x": 0, "y": 0.139, "z": -0.99})])
    expected = {
        "objects": [
            {"id": "box", "held": True},                                           # order does not matter
            {"id": "ball", "position_x": 1.0, "position_z": 2.0, "distance": 2.3},
            {"id": "ghost", "position_x": 9.0},                                    # not in the output: skipped
        ],
        "structural_objects": [{"id": "wall_back", "shape": "structural", "direction_y": 0.139, "direction_z": -0.99}],
    }
    assert compare_step(expected, actual) == []
    expected["objects"][1]["position_x"] = 1.5
    expected["structural_objects"][0]["direction_y"] = 0.5
    failures = compare_step(expected, actual, step=2)
    assert [(f.field, f.object_id) for f in failures] == [("objects.position_x", "ball"),
                                                         ("structural_objects.direction_y", "wall_back")]
    assert failures[0].expected == 1.5 and failures[0].actual == 1.0
    assert "objects[ball].position_x" in failures[0].describe()


def test_object_rotation_rounding_and_legacy_keys():
    actual = step(object_list=[obj("lid", rotation={"x": -0.4, "y": 369.6, "z": 89.5}, is_open=True)])
    expected = {"objects": [{"id": "lid", "rotation_x": 0, "rotation_y": 10, "rotation_z": 90,
                             "isOpen": True, "is_open": True, "pickupable": True}]}
    assert compare_step(expected, actual) == []  # pickupable: no such output field, not compared
    expected["objects"][0]["isOpen"] = False
    expected["objects"][0]["rotation_y"] = [11, 12]
    assert fields(compare_step(expected, actual)) == ["objects.rotation_y", "objects.isOpen"]


def test_replayed_entry_gives_what_the_output_says_in_the_recorded_format():
    actual = step(return_status="OBSTRUCTED", head_tilt=9.6, rotation=370.4,
                  object_list=[obj("ball", position={"x": 1.0, "y": 0.1, "z": 2.0}, rotation={"x": 0, "y": -1, "z": 0})],
                  structural_object_list=[obj("wall_back", visible=True)])
    expected = {"return_status": "SUCCESSFUL", "head_tilt": 10, "rotation_y": 10, "pickupable": True,
                "objects": [{"id": "ball", "position_x": 0.0, "position_z": 2.0, "rotation_y": 0, "pickupable": True},
                            {"id": "ghost", "position_x": 9.0}],
                "structural_objects": [{"id": "wall_back", "visible": False}]}
    assert replayed_entry(expected, actual) == {
        "return_status": "OBSTRUCTED", "head_tilt": 10, "rotation_y": 10,   # rounded as compared; no pickupable
        "objects": [{"id": "ball", "position_x": 1.0, "position_z": 2.0, "rotation_y": 359}],  # the ghost: not reported
        "structural_objects": [{"id": "wall_back", "visible": True}]}
    # compared against its own replay, an output has no failures
    assert compare_step(replayed_entry(expected, actual), actual) == []


# -- runner with a fake controller --------------------------------------------------------------------------
class FakeController:
    """Returns the same canned outputs: step n has step_number n; `fail_at` raises, `end_at` returns None."""

    def __init__(self, config, fail_at=None, end_at=None):
        self.config = config
        self.n = 0
        self.calls = []
        self.fail_at, self.end_at = fail_at, end_at

    def start_scene(self, scene):
        self.scene = scene
        return step(step_number=0)

    def step(self, action, **params):
        self.n += 1
        self.calls.append((action, params))
        if self.n == self.fail_at:
            raise ValueError("bad action")
        if self.n == self.end_at:
            return None
        return step(step_number=self.n)

    def end_scene(self):
        pass


@pytest.fixture
def tiny_corpus(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (tmp_path / "config_oracle.ini").write_text("[MCS]\nmetadata: oracle\nsteps_allowed_in_lava: 1000\n")
    (data / "001.fake.scene.json").write_text("\ufeff" + json.dumps({"name": "fake", "objects": []}), encoding="utf-8")
    (data / "001.fake.actions.txt").write_text("\ufeffMoveAhead\nPickupObject,objectImageCoordsX=300,objectImageCoordsY=200\n",
                                               encoding="utf-8")
    outputs = [{"step_number": i, "return_status": "SUCCESSFUL"} for i in range(3)]
    (data / "001.fake.oracle.outputs.json").write_text("\ufeff" + json.dumps(outputs), encoding="utf-8")
    (data / "002.wrong.scene.json").write_text(json.dumps({"name": "wrong"}))
    (data / "002.wrong.actions.txt").write_text("Pass\nPass\n")
    (data / "002.wrong.oracle.outputs.json").write_text(json.dumps(
        [{"step_number": 0}, {"step_number": 5, "reward": 1.0}, {"step_number": 2}, {"step_number": 99}]))
    (data / "002.wrong.oracle.config.ini").write_text("[MCS]\nmetadata: oracle\nsteps_allowed_in_lava: 1\n")
    return tmp_path


def test_tier_config_prefers_test_ini_and_adds_overrides(tiny_corpus):
    data = tiny_corpus / "data"
    config = tier_config(data, "001.fake", "oracle")
    assert config["steps_allowed_in_lava"] == "1000" and config["metadata"] == "oracle"
    assert config["reward_mode"] == "mcs074" and config["max_held_objects"] == 0 and config["render"] is False
    assert tier_config(data, "002.wrong", "oracle")["steps_allowed_in_lava"] == "1"
    assert tier_config(data, "001.fake", "level1") == {"metadata": "level1", **conformance.CONFORMANCE_OVERRIDES}


def test_run_test_with_fake_controller(tiny_corpus):
    made = []

    def factory(config):
        made.append(FakeController(config))
        return made[-1]

    result = run_test(tiny_corpus, "001.fake", "oracle", controller_factory=factory)
    assert result.passed and result.failures == [] and result.error is None and result.steps_compared == 3
    # numeric strings become floats; BOM stripped
    assert made[0].calls == [("MoveAhead", {}), ("PickupObject", {"objectImageCoordsX": 300.0, "objectImageCoordsY": 200.0})]
    assert made[0].scene == {"name": "fake", "objects": []}

    # extra recorded outputs beyond the actions are ignored; mismatches collected per step
    result = run_test(tiny_corpus / "data", "002.wrong", "oracle", controller_factory=factory)
    assert not result.passed
    assert [(f.step, f.field) for f in result.failures] == [(1, "step_number"), (1, "reward")]


def test_run_test_exception_and_none_stop(tiny_corpus):
    result = run_test(tiny_corpus, "001.fake", "oracle", controller_factory=lambda c: FakeController(c, fail_at=1))
    assert not result.passed and "ValueError" in result.error
    assert [(f.step, f.field) for f in result.failures] == [(1, "exception:ValueError")]
    result = run_test(tiny_corpus, "001.fake", "oracle", controller_factory=lambda c: FakeController(c, end_at=2))
    assert not result.passed and [(f.step, f.field) for f in result.failures] == [(2, "step_output")]
    assert result.steps_compared == 2


def test_run_test_missing_files(tiny_corpus):
    result = run_test(tiny_corpus, "001.fake", "level2", controller_factory=FakeController)
    assert not result.passed and result.error


def test_run_corpus_report_and_json_with_fake(tiny_corpus):
    assert discover_tests(tiny_corpus) == ["001.fake", "002.wrong"]
    assert discover_tests(tiny_corpus, ["002"]) == ["002.wrong"]
    results = run_corpus(tiny_corpus, tiers=("oracle", "level1"), progress=False, controller_factory=FakeController)
    oracle = results["oracle"]
    assert (oracle.passed, oracle.total) == (1, 2)
    assert oracle.failure_counts == {"reward": 1, "step_number": 1}
    assert results["level1"].total == 0  # no level1 outputs recorded
    report = format_report(results)
    assert "oracle: 1/2 passed (50.0%)" in report and "002.wrong" in report and "level1: 0/0" in report
    data = json.loads(json.dumps(to_json(results)))
    assert data["oracle"] == {"passed": 1, "total": 2, "pass_rate": 0.5,
                              "failures": {"reward": ["002.wrong"], "step_number": ["002.wrong"]}, "errors": {}}


def test_tier_result_aggregation():
    failing = TestResult("b", "oracle", False, [FieldFailure(1, "reward", 1, 0), FieldFailure(2, "reward", 1, 0),
                                                 FieldFailure(2, "position_x", 0, 1)])
    other = TestResult("c", "oracle", False, [FieldFailure(0, "reward", 1, 0)])
    tier = TierResult.from_results("oracle", [TestResult("a", "oracle", True), failing, other])
    assert (tier.passed, tier.total) == (1, 3)
    assert tier.failure_counts == {"reward": 2, "position_x": 1}  # counted once per test
    assert tier.failing_tests["reward"] == ["b", "c"]


# -- end to end on the embedded simulator -------------------------------------------------------------------

def test_empty_room_movement_oracle_passes():
    result = run_test(CORPUS, "001.empty_room_movement", "oracle")
    assert result.error is None, result.error
    assert result.passed, "\n".join(f.describe() for f in result.failures[:20])
    assert result.steps_compared == 21


def test_a_kept_replay_draws_the_paths_and_the_failing_values(doctored_corpus, tmp_path):
    from matplotlib.image import imread

    from mcs_plugin.conformance_plot import failing_rows, plot_test, tracks, write_replayed
    from tests.conftest import DOCTORED_STEPS

    result = run_test(doctored_corpus, "001.empty_room_movement", "oracle", keep_outputs=True)
    assert len(result.recorded) == len(result.replayed) == result.steps_compared == 21
    assert failing_rows(result) == {"position_x": list(DOCTORED_STEPS)}
    recorded, replayed = tracks(result.recorded), tracks(result.replayed)
    assert set(recorded) == set(replayed) == {"performer", "ceiling", "wall_back", "wall_front", "wall_left",
                                              "wall_right"}
    apart = [a[0] for a, b in zip(recorded["performer"], replayed["performer"])
             if not values_match(list(a), list(b))]  # (step, x, z)
    assert apart == list(DOCTORED_STEPS)
    picture = plot_test(result, tmp_path / "001.png")
    assert imread(picture).shape[:2] == (558, 1170)  # 13 x 6.2 inches at 90 dpi
    written = json.loads(write_replayed(result, tmp_path / "001.replayed.json").read_text())
    assert written == result.replayed and written[3]["structural_objects"][1]["id"] == "wall_back"


def test_a_replay_kept_no_outputs_cannot_be_drawn(tmp_path):
    from mcs_plugin.conformance_plot import plot_test

    with pytest.raises(ValueError, match="keep_outputs"):
        plot_test(TestResult("001.x", "oracle", False), tmp_path / "x.png")


def test_run_corpus_on_a_few_tests_is_well_formed():
    results = run_corpus(CORPUS, tiers=("oracle", "level1"), tests=["001", "002", "004"], progress=False)
    assert set(results) == {"oracle", "level1"}
    for tier, tier_result in results.items():
        assert isinstance(tier_result, TierResult) and tier_result.tier == tier
        assert tier_result.total == 3 and 0 <= tier_result.passed <= 3
        assert [r.name for r in tier_result.results] == [
            "001.empty_room_movement", "002.custom_position_movement", "004.move_into_wall"]
        assert all(r.passed == (not r.failures) for r in tier_result.results)
        assert sum(tier_result.failure_counts.values()) >= tier_result.total - tier_result.passed
    data = json.loads(json.dumps(to_json(results)))
    assert set(data["oracle"]) == {"passed", "total", "pass_rate", "failures", "errors"}
