"""Conformance runner: replay recorded outputs of the real MCS 0.7.4 Unity app on the embedded simulator.

The corpus format is described in ``tests/data/conformance/README.md``. Per test ``NNN.name`` there is
``NNN.name.scene.json``, ``NNN.name.actions.txt`` (one ``Action,key=value`` per line) and per metadata tier
``NNN.name.<tier>.outputs.json``: a list of expected step entries, the first for ``start_scene``, then one after
each action. A test may also have ``NNN.name.<tier>.config.ini``; otherwise the corpus's ``config_<tier>.ini`` is
used (looked up next to the test files, then one folder up).

Comparison rules (as the MCS integration tests, see :func:`values_match`):

- numbers match within ``math.isclose(rel_tol=0.01, abs_tol=0.01)``; booleans are not numbers;
- an expected list against an actual number is the closed range ``[min, max]``;
- lists and dicts match element by element with the same rules; anything else must be equal;
- ``head_tilt`` is ``round(head_tilt)``, ``rotation_y`` is ``round(rotation) % 360``, object ``rotation_x/y/z``
  are ``round(...) % 360``; ``objects_count`` / ``structural_objects_count`` are list lengths; object
  ``distance`` is ``distance_in_world``; the legacy object key ``isOpen`` is ``is_open``;
- ``objects`` / ``structural_objects`` entries are matched by ``id`` against every object the step reports;
  an expected object the step does not report is skipped (the counts catch missing objects);
- expected keys with no counterpart in the output (e.g. the legacy ``pickupable``) are not compared.

The comparison works on any object with StepMetadata / ObjectMetadata attribute names, so it is testable without
the simulator (:func:`compare_step`).
"""

from __future__ import annotations

import configparser
import json
import math
import os
import sys
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

TIERS: tuple[str, ...] = ("oracle", "level1", "level2")
REL_TOL = 0.01
ABS_TOL = 0.01
RANGE_EPSILON = 1e-9

SCENE_SUFFIX = ".scene.json"
ACTIONS_SUFFIX = ".actions.txt"
OUTPUTS_SUFFIX = ".outputs.json"
CONFIG_SUFFIX = ".config.ini"

# Config keys applied on top of every tier's INI: MCS 0.7.4 reward formula and unlimited held objects as the
# recorded app; no rendering (images are not compared, and it keeps the run fast).
CONFORMANCE_OVERRIDES: dict[str, Any] = {"reward_mode": "mcs074", "max_held_objects": 0, "render": False}

OBJECT_LISTS: tuple[str, ...] = ("objects", "structural_objects")
_MISSING = object()


# -- results ------------------------------------------------------------------------------------------------
@dataclass
class FieldFailure:
    """One expected value that did not match: at output `step` (0 = start_scene), `field` such as
    ``reward`` or ``objects.position_x`` (then `object_id` names the object), or ``exception:<Type>`` /
    ``step_output`` when the simulator raised or returned None before the expected outputs ran out."""

    step: int
    field: str
    expected: Any
    actual: Any
    object_id: str | None = None

    @property
    def label(self) -> str:
        """The failing value's name with its object: 'objects[ball].position_x', 'return_status'."""
        if self.object_id is None:
            return self.field
        group, _, key = self.field.partition(".")
        return f"{group}[{self.object_id}].{key}"

    def describe(self) -> str:
        """'step 3 objects[ball].position_x: expected 1.0, got 1.2'."""
        return f"step {self.step} {self.label}: expected {self.expected!r}, got {self.actual!r}"


@dataclass
class TestResult:
    """Outcome of one test at one tier; `error` holds a setup problem or the exception that stopped it."""

    __test__ = False  # not a pytest test class

    name: str
    tier: str
    passed: bool
    failures: list[FieldFailure] = field(default_factory=list)
    error: str | None = None
    steps_compared: int = 0
    recorded: list[dict[str, Any]] = field(default_factory=list)  # with keep_outputs: the compared recorded entries
    replayed: list[dict[str, Any]] = field(default_factory=list)  # ...and ours, in their format (replayed_entry)

    @property
    def failed_fields(self) -> list[str]:
        """The distinct failing field names, in order of first failure."""
        return list(dict.fromkeys(f.field for f in self.failures))


@dataclass
class TierResult:
    """All tests of one tier: pass counts, per-test results and, per failing field, the tests it failed in."""

    tier: str
    passed: int
    total: int
    results: list[TestResult] = field(default_factory=list)
    failure_counts: dict[str, int] = field(default_factory=dict)  # field -> number of tests it failed in
    failing_tests: dict[str, list[str]] = field(default_factory=dict)  # field -> test names, in run order

    @classmethod
    def from_results(cls, tier: str, results: Sequence[TestResult]) -> TierResult:
        """Aggregate test results; `failure_counts` is sorted by count (descending), then field name."""
        failing: dict[str, list[str]] = {}
        for result in results:
            for name in result.failed_fields:
                failing.setdefault(name, []).append(result.name)
        order = sorted(failing, key=lambda name: (-len(failing[name]), name))
        return cls(
            tier=tier,
            passed=sum(1 for r in results if r.passed),
            total=len(results),
            results=list(results),
            failure_counts={name: len(failing[name]) for name in order},
            failing_tests={name: failing[name] for name in order},
        )

    @property
    def pass_rate(self) -> float:
        """Passed / total (0 when there were no tests)."""
        return self.passed / self.total if self.total else 0.0


# -- comparison ---------------------------------------------------------------------------------------------
def is_number(value: Any) -> bool:
    """Whether a value is an int or float (booleans are not numbers here)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def plain(value: Any) -> Any:
    """Output values as JSON-like Python: enums -> values, tuples -> lists, numpy scalars/arrays -> Python."""
    if isinstance(value, Enum):
        return plain(value.value)
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "tolist") and callable(value.tolist):  # numpy arrays and scalars
        return plain(value.tolist())
    return value


def values_match(expected: Any, actual: Any) -> bool:
    """Whether an actual output value satisfies an expected one (the corpus README's rules)."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    if is_number(expected) and is_number(actual):
        if math.isnan(actual) or math.isnan(expected):
            return False
        return math.isclose(expected, actual, rel_tol=REL_TOL, abs_tol=ABS_TOL)
    if isinstance(expected, list) and is_number(actual):
        if not expected or not all(is_number(v) for v in expected):
            return False
        return min(expected) - RANGE_EPSILON <= actual <= max(expected) + RANGE_EPSILON
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(values_match(e, a) for e, a in zip(expected, actual))
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        return set(expected) == set(actual) and all(values_match(expected[k], actual[k]) for k in expected)
    return expected == actual


def _round360(value: Any) -> Any:
    return None if value is None else round(value) % 360


def _axis(mapping: Any, axis: str) -> Any:
    if not mapping:
        return None
    return mapping.get(axis) if isinstance(mapping, Mapping) else getattr(mapping, axis, None)


def _attr(name: str, convert: Callable[[Any], Any] | None = None) -> Callable[[Any], Any]:
    def get(obj: Any) -> Any:
        value = getattr(obj, name, _MISSING)
        if value is _MISSING:
            return _MISSING
        return convert(value) if convert is not None and value is not None else value

    return get


def _axis_of(name: str, axis: str, convert: Callable[[Any], Any] | None = None) -> Callable[[Any], Any]:
    def get(obj: Any) -> Any:
        value = _axis(getattr(obj, name, None), axis)
        return convert(value) if convert is not None and value is not None else value

    return get


def _length(name: str) -> Callable[[Any], Any]:
    return lambda obj: len(getattr(obj, name, None) or [])


# Expected step key -> value of a StepMetadata.
STEP_FIELDS: dict[str, Callable[[Any], Any]] = {
    "action_list": _attr("action_list"),
    "camera_height": _attr("camera_height"),
    "haptic_feedback": _attr("haptic_feedback"),
    "head_tilt": _attr("head_tilt", round),
    "holes": _attr("holes"),
    "lava": _attr("lava"),
    "objects_count": _length("object_list"),
    "position_x": _axis_of("position", "x"),
    "position_y": _axis_of("position", "y"),
    "position_z": _axis_of("position", "z"),
    "return_status": _attr("return_status"),
    "resolved_object": _attr("resolved_object"),
    "resolved_receptacle": _attr("resolved_receptacle"),
    "reward": _attr("reward"),
    "rotation_y": _attr("rotation", _round360),
    "room_dimensions": _attr("room_dimensions"),
    "step_number": _attr("step_number"),
    "physics_frames_per_second": _attr("physics_frames_per_second"),
    "structural_objects_count": _length("structural_object_list"),
    "triggered_by_sequence_incorrect": _attr("triggered_by_sequence_incorrect"),
}

# Expected object key -> value of an ObjectMetadata.
OBJECT_FIELDS: dict[str, Callable[[Any], Any]] = {
    "direction_x": _axis_of("direction", "x"),
    "direction_y": _axis_of("direction", "y"),
    "direction_z": _axis_of("direction", "z"),
    "distance": _attr("distance_in_world"),
    "position_x": _axis_of("position", "x"),
    "position_y": _axis_of("position", "y"),
    "position_z": _axis_of("position", "z"),
    "rotation_x": _axis_of("rotation", "x", _round360),
    "rotation_y": _axis_of("rotation", "y", _round360),
    "rotation_z": _axis_of("rotation", "z", _round360),
    "isOpen": _attr("is_open"),  # legacy spelling used by some recorded outputs
    **{
        name: _attr(name)
        for name in (
            "held", "mass", "material_list", "shape", "state_list", "texture_color_list", "visible", "is_open",
            "openable", "locked", "associated_with_agent", "simulation_agent_held_object",
            "simulation_agent_is_holding_held_object",
        )
    },
}


def _actual_value(getters: Mapping[str, Callable[[Any], Any]], obj: Any, key: str) -> Any:
    """The actual value for an expected key, or _MISSING when the output has no such field."""
    getter = getters.get(key)
    if getter is None:
        return getattr(obj, key, _MISSING)  # unknown keys: compared only if the output has that attribute
    return getter(obj)


def _mismatches(fields: Mapping[str, Any], actual: Any, expected: Mapping[str, Any], skip: Iterable[str]):
    """(key, expected, actual) for every expected key that `actual` reports differently."""
    for key, want in expected.items():
        if key in skip:
            continue
        value = _actual_value(fields, actual, key)
        if value is _MISSING:
            continue
        value = plain(value)
        if not values_match(want, value):
            yield key, want, value


def _reported_objects(actual: Any) -> dict[Any, Any]:
    """A step output's objects and structural objects by id (the first of an id wins)."""
    reported: dict[Any, Any] = {}
    for obj in list(getattr(actual, "object_list", None) or []) + list(getattr(actual, "structural_object_list", None) or []):
        reported.setdefault(getattr(obj, "uuid", None), obj)
    return reported


def compare_step(expected: Mapping[str, Any], actual: Any, step: int = 0) -> list[FieldFailure]:
    """Every mismatch between one expected step entry and one step output (StepMetadata or a look-alike)."""
    failures = [FieldFailure(step, key, want, value)
                for key, want, value in _mismatches(STEP_FIELDS, actual, expected, OBJECT_LISTS)]
    reported = _reported_objects(actual)
    for group in OBJECT_LISTS:
        for want_obj in expected.get(group) or []:
            object_id = want_obj.get("id")
            obj = reported.get(object_id)
            if obj is None:
                continue  # only objects present in both are compared
            failures.extend(FieldFailure(step, f"{group}.{key}", want, value, object_id)
                            for key, want, value in _mismatches(OBJECT_FIELDS, obj, want_obj, ("id",)))
    return failures


def replayed_entry(expected: Mapping[str, Any], actual: Any) -> dict[str, Any]:
    """A step output in the recorded entry's format: the value it gives for each key the entry has, as compared
    (objects matched by id; keys and objects it does not report are left out)."""
    entry = {}
    for key in expected:
        value = _MISSING if key in OBJECT_LISTS else _actual_value(STEP_FIELDS, actual, key)
        if value is not _MISSING:
            entry[key] = plain(value)
    reported = _reported_objects(actual)
    for group in OBJECT_LISTS:
        if group not in expected:
            continue
        entry[group] = []
        for want_obj in expected.get(group) or []:
            obj = reported.get(want_obj.get("id"))
            if obj is None:
                continue
            values = {key: _actual_value(OBJECT_FIELDS, obj, key) for key in want_obj if key != "id"}
            entry[group].append({"id": want_obj.get("id"),
                                 **{key: plain(v) for key, v in values.items() if v is not _MISSING}})
    return entry


# -- corpus files -------------------------------------------------------------------------------------------
def _read_json(path: Path) -> Any:
    with open(path, encoding="utf-8-sig") as handle:
        return json.load(handle)


def read_actions(path: str | os.PathLike[str]) -> list[str]:
    """Action lines of an actions file (BOM-tolerant); blank lines and '#' comments are skipped."""
    with open(path, encoding="utf-8-sig") as handle:
        lines = [line.strip() for line in handle]
    return [line for line in lines if line and not line.startswith("#")]


def read_ini(path: str | os.PathLike[str]) -> dict[str, str]:
    """The [MCS] section of an INI config file as a dict of strings."""
    parser = configparser.ConfigParser(interpolation=None)
    with open(path, encoding="utf-8-sig") as handle:
        parser.read_file(handle)
    return dict(parser.items("MCS")) if parser.has_section("MCS") else {}


def corpus_files_dir(directory: str | os.PathLike[str]) -> Path:
    """The folder holding the test files: `directory`, or its `data/` subfolder when only that has scenes."""
    directory = Path(directory)
    if not any(directory.glob(f"*{SCENE_SUFFIX}")) and (directory / "data").is_dir():
        return directory / "data"
    return directory


def discover_tests(directory: str | os.PathLike[str], tests: Iterable[str] | None = None) -> list[str]:
    """Sorted test names (scene file name minus '.scene.json'); `tests` keeps names equal to or starting with
    one of the given strings (so '001' selects '001.empty_room_movement')."""
    names = sorted(p.name[: -len(SCENE_SUFFIX)] for p in corpus_files_dir(directory).glob(f"*{SCENE_SUFFIX}"))
    if tests is not None:
        wanted = [str(t) for t in tests]
        names = [n for n in names if any(n == w or n.startswith(w) for w in wanted)]
    return names


def tier_config(test_dir: str | os.PathLike[str], test_name: str, tier: str) -> dict[str, Any]:
    """The config a test ran with at a tier: its own INI, else the corpus's config_<tier>.ini (here or one folder
    up), else {'metadata': tier}; then CONFORMANCE_OVERRIDES on top."""
    test_dir = Path(test_dir)
    candidates = [
        test_dir / f"{test_name}.{tier}{CONFIG_SUFFIX}",
        test_dir / f"config_{tier}.ini",
        test_dir.parent / f"config_{tier}.ini",
    ]
    config: dict[str, Any] = {"metadata": tier}
    for path in candidates:
        if path.is_file():
            config = read_ini(path)
            config.setdefault("metadata", tier)
            break
    config.update(CONFORMANCE_OVERRIDES)
    return config


def _default_controller(config: dict[str, Any]) -> Any:
    from mcs_plugin.sim.controller import EmbeddedController

    return EmbeddedController(config)


def _parse_action(line: str) -> tuple[str, dict[str, Any]]:
    from mcs_plugin.mcs import parse_action_string

    return parse_action_string(line)


def _exception_failure(step: int, expected: Any, error: BaseException) -> FieldFailure:
    return FieldFailure(step, f"exception:{type(error).__name__}", expected, f"{type(error).__name__}: {error}")


# -- running ------------------------------------------------------------------------------------------------
def run_test(
    test_dir: str | os.PathLike[str],
    test_name: str,
    tier: str,
    controller_factory: Callable[[dict[str, Any]], Any] | None = None,
    keep_outputs: bool = False,
) -> TestResult:
    """Replay one test at one tier and compare every recorded step output.

    Outputs 0..len(actions) are compared (extra recorded entries are ignored, as MCS does). A step that raises
    is recorded as an ``exception:<Type>`` failure and stops the test; a None output before the recorded outputs
    run out is a ``step_output`` failure and stops it too. `controller_factory(config)` defaults to
    EmbeddedController (tests may pass a fake). With `keep_outputs` the result also holds the compared recorded entries
    and ours in their format (``recorded``, ``replayed``), for conformance_plot.
    """
    test_dir = corpus_files_dir(test_dir)
    result = TestResult(name=test_name, tier=tier, passed=False)
    scene_path = test_dir / f"{test_name}{SCENE_SUFFIX}"
    outputs_path = test_dir / f"{test_name}.{tier}{OUTPUTS_SUFFIX}"
    actions_path = test_dir / f"{test_name}{ACTIONS_SUFFIX}"
    try:
        expected_list = _read_json(outputs_path)
        actions = read_actions(actions_path) if actions_path.is_file() else []
        scene = _read_json(scene_path)
        config = tier_config(test_dir, test_name, tier)
    except (OSError, ValueError, configparser.Error) as error:
        result.error = f"cannot load test files: {type(error).__name__}: {error}"
        result.failures.append(_exception_failure(0, "test files", error))
        return result
    if not isinstance(expected_list, list) or not expected_list:
        result.error = f"{outputs_path.name}: no recorded outputs"
        result.failures.append(FieldFailure(0, "outputs_file", "non-empty list of outputs", expected_list))
        return result

    n_compare = min(len(expected_list), len(actions) + 1)
    controller = None
    try:
        try:
            controller = (controller_factory or _default_controller)(config)
            output = controller.start_scene(scene)
        except Exception as error:  # noqa: BLE001 - any simulator error fails this test only
            result.error = f"start_scene: {type(error).__name__}: {error}"
            result.failures.append(_exception_failure(0, "start_scene output", error))
            return result
        for index in range(n_compare):
            try:
                result.failures.extend(compare_step(expected_list[index], output, index))
                if keep_outputs:
                    result.recorded.append(expected_list[index])
                    result.replayed.append(replayed_entry(expected_list[index], output))
            except Exception as error:  # noqa: BLE001 - an output of an unexpected shape fails this test only
                result.error = f"comparing output {index}: {type(error).__name__}: {error}"
                result.failures.append(_exception_failure(index, "comparable output", error))
                break
            result.steps_compared = index + 1
            if index + 1 >= n_compare:
                break
            line = actions[index]
            try:
                name, params = _parse_action(line)
                output = controller.step(name, **params)
            except Exception as error:  # noqa: BLE001
                result.error = f"step {index + 1} ({line}): {type(error).__name__}: {error}"
                result.failures.append(_exception_failure(index + 1, line, error))
                break
            if output is None:
                result.error = f"step {index + 1} ({line}) returned None; {n_compare - index - 1} outputs left"
                result.failures.append(FieldFailure(index + 1, "step_output", "step output", None))
                break
    finally:
        _close(controller)
    result.passed = not result.failures
    return result


def _close(controller: Any) -> None:
    if controller is None:
        return
    for method in ("end_scene", "stop_simulation"):
        try:
            getattr(controller, method)()
        except Exception:  # noqa: BLE001 - best effort cleanup (end_scene raises once a scene has ended)
            pass


def run_corpus(
    directory: str | os.PathLike[str],
    tiers: Sequence[str] = TIERS,
    tests: Iterable[str] | None = None,
    progress: bool = True,
    controller_factory: Callable[[dict[str, Any]], Any] | None = None,
    keep_outputs: bool = False,
) -> dict[str, TierResult]:
    """Run every test (or those selected by `tests`, see discover_tests) at each tier; a tqdm bar on stderr.

    A test with no recorded outputs for a tier is left out of that tier; `keep_outputs` as for run_test.
    """
    from tqdm import tqdm

    test_dir = corpus_files_dir(directory)
    names = discover_tests(test_dir, tests)
    plan = [(tier, name) for tier in tiers for name in names
            if (test_dir / f"{name}.{tier}{OUTPUTS_SUFFIX}").is_file()]
    per_tier: dict[str, list[TestResult]] = {tier: [] for tier in tiers}
    with tqdm(total=len(plan), desc="conformance", unit="test", file=sys.stderr, dynamic_ncols=True,
              disable=None if progress else True) as bar:  # None: drawn only when stderr is a terminal
        for tier, name in plan:
            bar.set_postfix_str(f"{tier} {name}", refresh=False)
            per_tier[tier].append(run_test(test_dir, name, tier, controller_factory, keep_outputs))
            bar.update(1)
    return {tier: TierResult.from_results(tier, per_tier[tier]) for tier in tiers}


# -- reporting ----------------------------------------------------------------------------------------------
def format_report(results: Mapping[str, TierResult], top: int = 10, examples: int = 3) -> str:
    """Human-readable summary: per tier passed/total and percentage, then the `top` most common failing fields
    with the number of tests each failed in and up to `examples` test names."""
    lines: list[str] = []
    for tier, tier_result in results.items():
        lines.append(f"{tier}: {tier_result.passed}/{tier_result.total} passed ({100 * tier_result.pass_rate:.1f}%)")
        if not tier_result.failure_counts:
            continue
        lines.append("  most common failing fields (tests):")
        for name, count in list(tier_result.failure_counts.items())[:top]:
            shown = tier_result.failing_tests[name][:examples]
            more = ", ..." if count > len(shown) else ""
            lines.append(f"    {name}: {count}  (e.g. {', '.join(shown)}{more})")
            example = _first_failure(tier_result, name)
            if example is not None:
                lines.append(f"      first: {example}")
        rest = len(tier_result.failure_counts) - top
        if rest > 0:
            lines.append(f"    ... and {rest} more fields")
    total_passed = sum(r.passed for r in results.values())
    total = sum(r.total for r in results.values())
    if len(results) > 1:
        share = 100 * total_passed / total if total else 0.0
        lines.append(f"all tiers: {total_passed}/{total} passed ({share:.1f}%)")
    return "\n".join(lines)


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _first_failure(tier_result: TierResult, field_name: str) -> str | None:
    """'NNN.name step 3 [ball]: expected 1.0, got 1.2' for the first failure of a field."""
    for result in tier_result.results:
        for failure in result.failures:
            if failure.field == field_name:
                where = f" [{failure.object_id}]" if failure.object_id is not None else ""
                return (f"{result.name} step {failure.step}{where}: expected {_short(failure.expected)}, "
                        f"got {_short(failure.actual)}")
    return None


def passing_tests(results: Mapping[str, TierResult]) -> dict[str, list[str]]:
    """The sorted names of the tests that passed, per tier (what tests/data/conformance/passing.json records)."""
    return {tier: sorted(t.name for t in r.results if t.passed) for tier, r in results.items()}


def to_json(results: Mapping[str, TierResult]) -> dict[str, Any]:
    """JSON-serialisable summary, exactly::

        {
          "<tier>": {
            "passed": int,              # tests that passed
            "total": int,               # tests run at this tier
            "pass_rate": float,         # passed / total, 0.0 when total is 0
            "failures": {               # failing field -> sorted names of the tests it failed in
              "<field>": ["NNN.name", ...], ...   # (the count is the list's length); ordered by count, descending
            },
            "errors": {"NNN.name": "message", ...}   # tests stopped by an exception / setup problem / None output
          },
          ...
        }

    Field names are step keys (``reward``, ``position_x``, ...), ``objects.<key>`` / ``structural_objects.<key>``,
    ``exception:<ExceptionType>`` or ``step_output`` (see FieldFailure).
    """
    return {
        tier: {
            "passed": r.passed,
            "total": r.total,
            "pass_rate": round(r.pass_rate, 4),
            "failures": {name: sorted(tests) for name, tests in r.failing_tests.items()},
            "errors": {t.name: t.error for t in r.results if t.error},
        }
        for tier, r in results.items()
    }
