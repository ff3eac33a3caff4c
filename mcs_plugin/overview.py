"""`mcs-plugin tasks`: what the plugin offers a researcher: goal categories and their task classes, each task
class's action vocabulary, and the sensors with their observation spaces (read from the code, not restated).

    mcs-plugin tasks [--json]
"""

from __future__ import annotations

import argparse
import inspect
import json
from typing import Any


def _first_line(obj: Any) -> str:
    return (inspect.getdoc(obj) or "").split("\n")[0]


def action_labels(task_class: type) -> tuple[str, ...]:
    """A task class's action labels at its default settings, in index order, from its own class_action_names()
    (which needs no environment: it is called on a bare instance holding only the default vocabulary)."""
    from mcs_plugin.tasks import ActionVocabulary

    task = object.__new__(task_class)
    task.vocabulary = ActionVocabulary(task_class.default_actions)
    task.confidence_levels = tuple(getattr(task_class, "DEFAULT_CONFIDENCE_LEVELS", ()))
    return tuple(task.class_action_names())


def overview() -> dict[str, Any]:
    """Goal categories -> task class, task classes -> actions, sensors -> uuid and space (default arguments)."""
    from mcs_plugin import sensors
    from mcs_plugin.tasks import TASK_CLASSES

    classes = list(dict.fromkeys(TASK_CLASSES.values()))
    return {
        "goals": {category: cls.__name__ for category, cls in TASK_CLASSES.items()},
        "tasks": {cls.__name__: {"module": cls.__module__, "doc": _first_line(cls), "actions": list(action_labels(cls))}
                  for cls in classes},
        "sensors": {name: {"uuid": sensor.uuid, "space": str(sensor.observation_space), "doc": _first_line(cls)}
                    for name in sensors.__all__
                    for cls in [getattr(sensors, name)] for sensor in [cls()]},
    }


def format_overview(info: dict[str, Any]) -> str:
    """The overview as readable text."""
    lines = ["Goal categories (scene goal.category) -> task class (mcs_plugin.tasks.TASK_CLASSES):"]
    width = max(map(len, info["goals"]))
    lines += [f"  {category:<{width}}  {name}" for category, name in info["goals"].items()]
    lines += ["", "Task classes and their default action vocabularies (index: label; object actions at the crosshair,",
              "or at every point of grid_points(rows, cols) with vocabulary=ActionVocabulary(names, points)):"]
    for name, task in info["tasks"].items():
        lines.append(f"  {name} ({task['module']}): {task['doc']}")
        lines.append("    " + "  ".join(f"{i}:{label}" for i, label in enumerate(task["actions"])))
    lines += ["", "Sensors (mcs_plugin.sensors; uuid, observation space at the default arguments):"]
    width = max(map(len, info["sensors"]))
    for name, sensor in info["sensors"].items():
        lines.append(f"  {name:<{width}}  {sensor['uuid']:<13} {sensor['space']}")
        lines.append(f"  {'':<{width}}  {sensor['doc']}")
    return "\n".join(lines)


def cmd_tasks(args: argparse.Namespace) -> int:
    """Print the overview (text, or one JSON object with --json)."""
    info = overview()
    print(json.dumps(info, indent=1) if args.json else format_overview(info))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `tasks` to the `mcs-plugin` parser."""
    text = "list goal categories, task classes, their action vocabularies and the sensors"
    parser = subparsers.add_parser("tasks", help=text, description=text)
    parser.add_argument("--json", action="store_true", help="one JSON object instead of text")
    parser.set_defaults(handler=cmd_tasks)
