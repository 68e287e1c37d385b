"""A rule selected alone reports what it reports beside every other rule.

The files analysed do not depend on ``--select`` (every rule's triggers decide them), so a
difference comes from the order the analysis answers questions in: one rule filling a table
another reads (LightningCLI's Trainer calls were recorded only once another rule had asked
for the Trainers). ``tests/test_select_independence.py`` checks this on the fixtures,
messages included; this script checks it on real checkouts: for each repository of a panel
run and each rule with findings there, it runs ``seedlint --select RULE .`` and compares the
findings with that rule's findings in the run (by file, line, column, code, severity and
message).

    python bench/select_parity.py --checkouts /work/checkouts --results /work/panel_runs/v57 \\
        --out bench/results/select_parity.md [--src SRC] [--only REPO ...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from parity import findings, key, write_report

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(os.path.dirname(HERE), "src")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkouts", required=True)
    parser.add_argument("--results", required=True, help="a panel run's folder, made by the same source")
    parser.add_argument("--src", default=SOURCE, help="the seedlint source tree to run (default: this checkout's)")
    parser.add_argument("--only", nargs="+", metavar="CHECKOUT", help="these checkouts (folder names) only")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    rows, differences = [], []
    for name in sorted(os.listdir(args.results)):
        if name.startswith("_") or not name.endswith(".json") or (args.only and name[:-5] not in args.only):
            continue
        results = json.load(open(os.path.join(args.results, name)))
        checkout = os.path.join(args.checkouts, name[:-5])
        if not os.path.isdir(checkout):
            continue
        for code in sorted({f["code"] for f in results.get("findings") or []}):
            together = sorted(key(f) for f in results["findings"] if f["code"] == code)
            alone, seconds = findings(args.src, checkout, ["--select", code, "."], {"PYTHONSAFEPATH": "1"})
            same = alone == together
            rows.append((results["repo"], code, len(together), len(alone), same, seconds))
            if not same:
                differences.append((results["repo"], code, sorted(set(together) - set(alone)), sorted(set(alone) - set(together))))
            print(f"{results['repo']:45} {code} {len(together):3} -> {len(alone):3} {'same' if same else 'DIFFERENT'} {seconds:6.2f}s",
                  flush=True)
    write_report(
        args.out, "Each rule alone, against the run with every rule",
        ("repository", "rule", "with every rule", "alone", "same", "seconds alone"),
        [(r, c, str(n), str(m), "yes" if s else "NO", f"{t:.2f}") for r, c, n, m, s, t in rows],
        [(f"{repo} {code}", lost, gained) for repo, code, lost, gained in differences], ("with every rule", "alone"),
    )
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
