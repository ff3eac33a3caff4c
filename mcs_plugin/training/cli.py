"""The `plot` subcommand of `mcs-plugin` (added to the main parser by `register(subparsers)`).

    mcs-plugin plot runs/ppo [--out curves.png] [--metrics success reward ep_length] [--smoothing 0.6]
"""

from __future__ import annotations

import argparse
import sys

from mcs_plugin.training.curves import DEFAULT_METRICS


def add_plot_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `plot`."""
    parser.add_argument("run_dir", metavar="RUN_DIR", help="an AllenAct output folder (-o), or any folder of tb logs")
    parser.add_argument("--out", help="PNG to write (default RUN_DIR/learning_curves.png)")
    parser.add_argument("--metrics", nargs="+", default=list(DEFAULT_METRICS), metavar="NAME",
                        help=f"task metrics to plot (default: {' '.join(DEFAULT_METRICS)})")
    parser.add_argument("--smoothing", type=float, default=0.6,
                        help="tensorboard-style smoothing weight in [0, 1) (default 0.6; 0 = none)")


def cmd_plot(args: argparse.Namespace) -> int:
    """Run `plot`: read the run's tensorboard logs, write one PNG with a panel per metric."""
    from pathlib import Path

    from mcs_plugin.training.curves import plot_curves, read_curves

    run_dir = Path(args.run_dir)
    if not run_dir.is_dir():
        print(f"plot: {run_dir}: no such folder", file=sys.stderr)
        return 2
    if not 0.0 <= args.smoothing < 1.0:
        print("plot: --smoothing must be in [0, 1)", file=sys.stderr)
        return 2
    curves = read_curves(run_dir, args.metrics)
    if not curves:
        print(f"plot: no tensorboard scalars for {', '.join(args.metrics)} under {run_dir}", file=sys.stderr)
        return 1
    out = plot_curves(curves, args.out or run_dir / "learning_curves.png", title=str(run_dir),
                      smoothing=args.smoothing)
    print(f"wrote {out} ({len(curves)} curves)")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `plot` to the `mcs-plugin` parser."""
    parser = subparsers.add_parser("plot", help="learning curves (PNG) from a run's tensorboard logs",
                                   description="learning curves (PNG) from a run's tensorboard logs")
    add_plot_arguments(parser)
    parser.set_defaults(handler=cmd_plot)
