"""What the parity checks share: running seedlint on a checkout for its findings, and the
markdown report of runs that should agree and the findings where they do not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Dict, List, Sequence, Tuple


def key(finding: dict) -> tuple:
    """A finding as the checks compare it: file, line, column, code, severity and message."""
    return finding["path"], finding["line"], finding["column"], finding["code"], finding["severity"], finding["message"]


def findings(src: str, checkout: str, arguments: Sequence[str], env: Dict[str, str]) -> Tuple[List[tuple], float]:
    """The sorted findings of ``seedlint --no-cache --output-format json ARGUMENTS`` run in
    the checkout by the source tree ``src``, and the seconds it took."""
    started = time.perf_counter()
    run = subprocess.run(
        [sys.executable, "-m", "seedlint", "--no-cache", "--output-format", "json", *arguments], cwd=checkout,
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": src, **env}, check=False,
    )
    elapsed = time.perf_counter() - started
    try:
        diagnostics = json.loads(run.stdout)["diagnostics"]
    except (ValueError, KeyError):
        return [("unreadable output", run.returncode, run.stderr[-300:])], elapsed
    return sorted(key(d) for d in diagnostics), elapsed


def write_report(path: str, title: str, header: Sequence[str], rows: List[Sequence[str]],
                 differences: List[Tuple[str, List[tuple], List[tuple]]], labels: Tuple[str, str]) -> None:
    """A table of the runs (``rows``, already formatted), then per pair of runs that differ
    the findings only the first (``labels[0]``) and only the second gave."""
    lines = [f"# {title}", "", f"{len(rows)} runs over {len({row[0] for row in rows})} repositories; {len(differences)} differ.", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    for heading, first, second in differences:
        lines += ["", f"## {heading}"]
        lines += [f"- only {labels[0]}: {item}" for item in first]
        lines += [f"- only {labels[1]}: {item}" for item in second]
    with open(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")
