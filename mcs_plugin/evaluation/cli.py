"""`mcs-plugin evaluate CHECKPOINT SCENES... [--experiment FILE] [--json] [--video DIR]`: run a trained policy (or
`random`) on scene files or folders and report success, SPL, episode length and distance per goal category, per
MCS evaluation family (Eval-7) and per scene."""

from __future__ import annotations

import argparse
import json
import sys

HELP = "run a trained policy (AllenAct checkpoint) on scenes and report success, SPL and more per goal category"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of the `evaluate` subcommand."""
    parser.add_argument("checkpoint", metavar="CHECKPOINT",
                        help="an AllenAct checkpoint (.pt) of an MCS experiment, or `random` (uniformly random actions of "
                             "--experiment's action space: the reference to beat)")
    parser.add_argument("scenes", nargs="+", metavar="SCENES", help="scene JSON files, folders, globs or manifests")
    parser.add_argument("--experiment", metavar="FILE",
                        help="the experiment file (default: found from the checkpoint's run folder)")
    parser.add_argument("--config-kwargs", metavar="JSON", default="{}",
                        help="experiment arguments that override the run's (e.g. '{\"max_steps\": 100}')")
    parser.add_argument("--json", action="store_true",
                        help='print one JSON object: {"success", "episodes", "spl", ..., "by_category", "by_family", "per_scene"}')
    parser.add_argument("--video", metavar="DIR", help="write one GIF per episode (agent view + top-down map) here")
    parser.add_argument("--greedy", action="store_true", help="take the most likely action (default: sample)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the action sampling")
    parser.add_argument("--max-steps", type=int, metavar="N", help="episode step limit (default: the experiment's)")


def run(args: argparse.Namespace) -> int:
    """Evaluate and print the report; exit 2 on a bad checkpoint, experiment or scene list."""
    from mcs_plugin.evaluation import evaluate, load_policy, summarise
    from mcs_plugin.evaluation.policy import random_policy
    from mcs_plugin.evaluation.runner import format_report

    try:
        if args.checkpoint == "random":
            if args.experiment is None:
                raise ValueError("evaluate random needs --experiment FILE (its action space and sensors)")
            policy = random_policy(args.experiment, json.loads(args.config_kwargs))
        else:
            policy = load_policy(args.checkpoint, args.experiment, json.loads(args.config_kwargs))
        records = evaluate(policy, args.scenes, greedy=args.greedy, seed=args.seed, video_dir=args.video,
                           max_steps=args.max_steps)
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({**summarise(records), "per_scene": [r.to_dict() for r in records]}))
    else:
        print(format_report(records))
    return 0


def register(subparsers) -> None:
    """Add `evaluate` to an argparse sub-parser set."""
    parser = subparsers.add_parser("evaluate", help=HELP, description=__doc__)
    add_arguments(parser)
    parser.set_defaults(handler=run)
