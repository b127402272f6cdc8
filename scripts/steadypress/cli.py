"""The console script: the command line parsed, then the command run.

What runs a command (the executor, the targets, the GitHub client, their libraries) is imported
only once a command is known, so `steadypress --help`, or a mistyped option, costs the
interpreter and argparse and nothing more.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Mapping, Sequence

from steadypress.clock import Clock
from steadypress.commandline import EXIT_USAGE, build_parser

__all__ = ["GC_THRESHOLDS", "main"]

# The collector's thresholds while a command runs (gc.set_threshold: allocations between
# collections of the young, then collections of each generation between those of the next);
# Python's own are (700, 10, 10). Why: in `main`.
GC_THRESHOLDS = (50_000, 20, 100)


def main(
    argv: Sequence[str] | None = None,
    *,
    clock: Clock | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """The console script. `clock` and `environ` come from outside (the real ones by default),
    so tests drive time and the environment instead of waiting on them."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(arguments)
    args = parser.parse_args(arguments)
    if args.command is None:  # plain `steadypress`: what it is and what it can do
        parser.print_help()
        return EXIT_USAGE
    from steadypress.commands import run  # noqa: PLC0415 (heavy: only once a command is known)

    # What is alive now (modules, classes, their tables) lives as long as the process: frozen,
    # the collector stops walking it at each collection (a first build of 1,000 articles spent
    # 40 ms of its 0.9 s of CPU in collections). And what a run builds up (a first build's
    # index of the site, 0.9 GB at 10^5 articles) was walked whole some 80 times by the
    # default thresholds, 28 s of the 204 s of CPU of the main process: collections of the
    # young every 50,000 allocations, not 700 (GC_THRESHOLDS), leave what dies young to
    # reference counting and a walk of everything to the few cycles there are (5 s at 10^5).
    # Both given back after, for a caller that runs several commands in one process; a caller
    # that froze its own objects first keeps them frozen (`gc.unfreeze` would thaw them too).
    thresholds = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    freezing = gc.get_freeze_count() == 0
    if freezing:
        gc.freeze()
    try:
        return run(args, clock=clock, environ=environ)
    finally:
        if freezing:
            gc.unfreeze()
        gc.set_threshold(*thresholds)
