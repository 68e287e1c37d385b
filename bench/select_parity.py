"""A rule selected alone reports what it reports beside every other rule.

The byte prefilter keeps a file when it spells a trigger of a *selected* rule, so a rule
whose triggers miss a file it needs gives fewer findings alone (``--select SDL008``) than in
the default run, where another rule's triggers happened to keep that file (suncet's
module-level ``torch.manual_seed``). ``tests/test_select_independence.py`` checks this on
the fixtures; this script checks it on real checkouts: for each repository of a panel run
and each rule with findings there, it runs ``seedlint --select RULE .`` and compares the
findings with that rule's findings in the run (by file, line, column, code, severity and
message).

    python bench/select_parity.py --checkouts /work/checkouts --results /work/panel_runs/v57 \\
        --out bench/results/select_parity.md [--src SRC] [--only REPO ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(os.path.dirname(HERE), "src")


def _findings(src: str, checkout: str, code: str) -> Tuple[List[tuple], float]:
    started = time.perf_counter()
    run = subprocess.run(
        [sys.executable, "-m", "seedlint", "--no-cache", "--output-format", "json", "--select", code, "."], cwd=checkout,
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": src, "PYTHONSAFEPATH": "1"}, check=False,
    )
    elapsed = time.perf_counter() - started
    try:
        diagnostics = json.loads(run.stdout)["diagnostics"]
    except (ValueError, KeyError):
        return [("unreadable output", run.returncode, run.stderr[-300:])], elapsed
    return sorted(_key(d) for d in diagnostics), elapsed


def _key(finding: dict) -> tuple:
    return finding["path"], finding["line"], finding["column"], finding["code"], finding["severity"], finding["message"]


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
            together = sorted(_key(f) for f in results["findings"] if f["code"] == code)
            alone, seconds = _findings(args.src, checkout, code)
            same = alone == together
            rows.append((results["repo"], code, len(together), len(alone), same, seconds))
            if not same:
                differences.append((results["repo"], code, sorted(set(together) - set(alone)), sorted(set(alone) - set(together))))
            print(f"{results['repo']:45} {code} {len(together):3} -> {len(alone):3} {'same' if same else 'DIFFERENT'} {seconds:6.2f}s",
                  flush=True)
    lines = ["# Each rule alone, against the run with every rule", "",
             f"{len(rows)} runs over {len({r[0] for r in rows})} repositories; {len(differences)} differ.", "",
             "| repository | rule | with every rule | alone | same | seconds alone |", "|---|---|---|---|---|---|"]
    lines += [f"| {r} | {c} | {n} | {m} | {'yes' if s else 'NO'} | {t:.2f} |" for r, c, n, m, s, t in rows]
    for repo, code, lost, gained in differences:
        lines += ["", f"## {repo} {code}"]
        lines += [f"- only with every rule: {item}" for item in lost]
        lines += [f"- only alone: {item}" for item in gained]
    with open(args.out, "w") as handle:
        handle.write("\n".join(lines) + "\n")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
