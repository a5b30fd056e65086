"""Runs a suite's scenarios in turn and reports each: the loop interop.py and widearea.py share.

A scenario is a function of the suite returning its figures (strings); it raises `Failure`
(lab.py) when an expectation does not hold and `Skip` when something it needs is missing. Each
prints one line, "PASS name: figures", "FAIL name: reason" (then the rest of the reason) or
"SKIP name: why", and a line with its summary, time and log directory; the closing line is
"LABEL: N passed, M failed[, K skipped]", also written to WORKDIR/summary.txt.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
import traceback
from typing import Callable

from lab import Failure


class Skip(Exception):
    """A scenario whose peer is not available here; the message says which and how to get it."""


def parse_scenario_arguments(parser: argparse.ArgumentParser, scenarios: dict) -> argparse.Namespace | None:
    """Adds `--list` and the scenario names to `parser` and parses the command line; returns
    None once `--list` has printed the scenarios. An unknown name is a usage error. From then on
    SIGTERM (the shell script's timeout or trap) unwinds like an exception, so the labs close."""
    parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    parser.add_argument("scenarios", nargs="*", metavar="SCENARIO", help="run only these (default: all)")
    args = parser.parse_args()
    if args.list:
        width = max(map(len, scenarios)) + 2
        for name, (_, summary) in scenarios.items():
            print(f"{name:{width}} {summary}")
        return None
    unknown = [name for name in args.scenarios if name not in scenarios]
    if unknown:
        parser.error(f"unknown scenario(s) {', '.join(unknown)}; known: {', '.join(scenarios)}")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    return args


def run_scenarios(scenarios: dict, names: list[str], suite, workdir: str, label: str,
                  before: Callable[[], None] = lambda: None, after: Callable[[], None] = lambda: None,
                  on_failure: Callable[[str], None] = lambda rest: None) -> int:
    """Runs `names` (all of `scenarios` when empty) and returns the exit status: 1 if any failed.

    `before` runs before each scenario; `after` after one that passed, and may raise `Failure`;
    `on_failure` gets the rest of a failure's message, to print what it does not already show.
    """
    os.makedirs(workdir, exist_ok=True)
    results = []
    for name in names or list(scenarios):
        fn, summary = scenarios[name]
        before()
        t0 = time.monotonic()
        try:
            figures = fn(suite)
            after()
            line = f"PASS {name}: " + "; ".join(figures)
            results.append((True, line))
            print(line, flush=True)
        except Skip as skip:
            line = f"SKIP {name}: {skip}"
            results.append((None, line))
            print(line, flush=True)
        except Failure as f:
            first, _, rest = str(f).partition("\n")
            line = f"FAIL {name}: {first}"
            results.append((False, line))
            print(line, flush=True)
            if rest:
                print(rest, flush=True)
            on_failure(rest)
        except Exception as e:               # a harness problem, reported as a failure
            line = f"FAIL {name}: harness error {type(e).__name__}: {e}"
            results.append((False, line))
            print(line, flush=True)
            traceback.print_exc()
        print(f"     ({summary}; {time.monotonic() - t0:.1f} s; logs in {os.path.join(workdir, name)})", flush=True)
    passed = sum(ok is True for ok, _ in results)
    skipped = sum(ok is None for ok, _ in results)
    failed = len(results) - passed - skipped
    closing = f"{label}: {passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else "")
    with open(os.path.join(workdir, "summary.txt"), "w") as f:
        f.write("\n".join(l for _, l in results) + "\n" + closing + "\n")
    print(closing, flush=True)
    return 0 if failed == 0 else 1
