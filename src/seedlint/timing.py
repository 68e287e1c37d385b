"""Where a run's time goes, for the benchmark: seconds per phase (discovery, reading and
the byte prefilter, the syntax-tree prefilter, parsing, facts, rules with the analysis
they ask for). A phase entered inside another (a module parsed while a rule runs) is
counted in the inner phase only.

Off unless ``SEEDLINT_TIMINGS`` names a file: the CLI then writes the totals there as JSON
when it ends. Parsing done in worker processes (``--jobs`` above 1) is not seen; the
benchmark measures the split with ``--jobs 1``.
"""

from __future__ import annotations

import json
import os
import time
from contextlib import contextmanager
from typing import Dict, Iterator, List

ENABLED = bool(os.environ.get("SEEDLINT_TIMINGS"))
TOTALS: Dict[str, float] = {}
LIMITS: Dict[str, int] = {}
"""How often each analysis bound cut an answer short (see ``limit_hit``)."""
_STACK: List[List] = []  # [phase, started, time spent in inner phases]


@contextmanager
def phase(name: str) -> Iterator[None]:
    if not ENABLED:
        yield
        return
    entry = [name, time.perf_counter(), 0.0]
    _STACK.append(entry)
    try:
        yield
    finally:
        _STACK.pop()
        spent = time.perf_counter() - entry[1]
        TOTALS[name] = TOTALS.get(name, 0.0) + spent - entry[2]
        if _STACK:
            _STACK[-1][2] += spent


def limit_hit(name: str) -> None:
    """Count a bound of the analysis that cut an answer short (a guard against pathological
    code: ordinary code should never reach one). Reported as ``"limit <name>"``."""
    if ENABLED:
        LIMITS[name] = LIMITS.get(name, 0) + 1


def write() -> None:
    """Write the totals to the file ``SEEDLINT_TIMINGS`` names (when it names one)."""
    target = os.environ.get("SEEDLINT_TIMINGS")
    if not target:
        return
    with open(target, "w", encoding="utf-8") as handle:
        totals = {name: round(seconds, 4) for name, seconds in sorted(TOTALS.items())}
        totals.update({f"limit {name}": count for name, count in sorted(LIMITS.items())})
        json.dump(totals, handle)
