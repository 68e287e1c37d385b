"""A run over some files reports what a run over the whole project reports for them.

Pre-commit passes the changed files, and seedlint then judges only the loaders whose
modules may reach those files or be reached from them (``seedlint.analysis.focus``). This
script checks that shortcut on real checkouts: for each repository of a panel, it takes
the files with findings and a few other Python files, and compares ``seedlint FILE`` with
the same command analysing the whole project (``SEEDLINT_FOCUS=0``), both run by the code
under test (or by ``--src``). Findings are compared by file, line, column, code, severity
and message.

    python bench/focus_parity.py --checkouts /work/checkouts --results /work/panel_runs/v19c \\
        --out bench/results/focus_parity.md
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from typing import Dict, List, Tuple

from parity import findings, write_report

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(os.path.dirname(HERE), "src")


def _findings(src: str, checkout: str, file: str, focus: bool) -> Tuple[List[tuple], float]:
    return findings(src, checkout, [file], {"SEEDLINT_FOCUS": "1" if focus else "0"})


def _sample(checkout: str, results: Dict, extra: int, rng: random.Random) -> List[str]:
    with_findings = sorted({f["path"] for f in results.get("findings", [])})[:4]
    python = []
    for directory, subdirs, files in os.walk(checkout):
        subdirs[:] = [d for d in subdirs if not d.startswith(".")]
        python.extend(os.path.relpath(os.path.join(directory, f), checkout) for f in files if f.endswith(".py"))
    others = sorted(set(python) - set(with_findings))
    return with_findings + rng.sample(others, min(extra, len(others)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkouts", required=True)
    parser.add_argument("--results", required=True, help="a panel run's folder: which files have findings")
    parser.add_argument("--src", default=SOURCE, help="the seedlint source tree to run (default: this checkout's)")
    parser.add_argument("--extra", type=int, default=2, help="files without findings per repository")
    parser.add_argument("--only-with-findings", action="store_true")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    rng = random.Random(0)
    rows, differences = [], []
    for name in sorted(os.listdir(args.results)):
        results = json.load(open(os.path.join(args.results, name)))
        if args.only_with_findings and not results.get("findings"):
            continue
        checkout = os.path.join(args.checkouts, name[:-5])
        if not os.path.isdir(checkout):
            continue
        for file in _sample(checkout, results, args.extra, rng):
            focused, focused_s = _findings(args.src, checkout, file, True)
            whole, whole_s = _findings(args.src, checkout, file, False)
            same = focused == whole
            rows.append((results["repo"], file, len(whole), same, whole_s, focused_s))
            if not same:
                differences.append((results["repo"], file, sorted(set(whole) - set(focused)), sorted(set(focused) - set(whole))))
            print(f"{results['repo']:40} {file[:60]:60} {len(whole):3} {'same' if same else 'DIFFERENT'} "
                  f"{whole_s:6.2f}s -> {focused_s:6.2f}s", flush=True)
    write_report(
        args.out, "One file, focused, against the whole project",
        ("repository", "file", "findings", "same", "whole s", "focused s"),
        [(r, f"`{f}`", str(n), "yes" if s else "NO", f"{a:.2f}", f"{b:.2f}") for r, f, n, s, a, b in rows],
        [(f"{repo} `{file}`", lost, gained) for repo, file, lost, gained in differences], ("whole", "focused"),
    )
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
