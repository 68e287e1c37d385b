"""Benchmark seedlint on repository checkouts as users have them, against ruff and flake8
measured in the same run.

Usage:
    python bench/checkouts.py --tree PATH [--tree PATH ...] [--runs N] [--workdir DIR]
                              [--seedlint-python PYTHON] [--output FILE]

For each checkout (its training scripts, ``examples/`` and tests included):

- ruff ``--select NPY002 --no-cache`` (the reference), flake8 ``--select=E9`` and
  ``--select=E9,SDL`` (flake8 in the seedlint environment, so the plugin is installed);
- seedlint cold (``--no-cache``), and with ``--jobs 1`` under ``SEEDLINT_TIMINGS`` for the
  time split: discovery, reading and byte prefilter, syntax prefilter, parse (plain
  ``libcst.parse_module``), facts, rules with the analysis they ask for;
- seedlint warm (the cache filled by a first run) and its peak memory;
- one training script changed, as pre-commit runs it: ``seedlint FILE`` cold, and warm
  after the file's modification time changed (unchanged modules come from the facts cache,
  and only the loaders of the programs the file belongs to are judged:
  ``seedlint.analysis.focus``);
- whether the findings are the same with ``--jobs 1``, the default jobs, cold and warm.

ruff and flake8 come from a ``peers`` virtualenv in the work directory (created once); the
seedlint under test is the one ``--seedlint-python`` imports (default: this interpreter).
Results go to ``bench/results/latest.md``. The checkouts are only read (seedlint writes
its ``.seedlint_cache/`` into each, which the script removes before cold runs).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_bench import (  # noqa: E402  (the shared process and venv helpers)
    FLAKE8, RESULTS_DIR, RSS_WRAPPER, ensure_venv, load_average, log, run_once, venv_bin,
)

PEERS = ["ruff==0.17.6", FLAKE8]
SKIPPED_DIRS = {".git", ".seedlint_cache", "__pycache__", ".venv", "venv", "node_modules", "build", "dist"}


def python_files(tree: Path) -> list[Path]:
    found = []
    for directory, subdirs, files in os.walk(tree):
        subdirs[:] = [d for d in subdirs if d not in SKIPPED_DIRS and not d.startswith(".")]
        found.extend(Path(directory) / f for f in files if f.endswith(".py"))
    return sorted(found)


def training_script(files: list[Path]) -> Path | None:
    """A file that builds a DataLoader, preferring one named like a training script."""
    builders = [f for f in files if b"DataLoader(" in f.read_bytes()]
    named = [f for f in builders if "train" in f.name]
    return (named or builders or [None])[0]


def clear_cache(tree: Path) -> None:
    shutil.rmtree(tree / ".seedlint_cache", ignore_errors=True)


def timed(argv, cwd: Path, runs: int, before=None, env=None) -> tuple[float, object]:
    """Median seconds over ``runs`` and the last run; ``before`` runs untimed before each."""
    seconds, last = [], None
    for _ in range(runs):
        if before is not None:
            before()
        last = run_once([str(a) for a in argv], cwd=cwd, env=env)
        seconds.append(last.seconds)
    return statistics.median(seconds), last


def findings(run) -> list[str]:
    return sorted(line.split(" ", 2)[0] + " " + line.split(" ", 2)[1] for line in run.stdout.splitlines() if " SDL" in line)


def peak_rss_mb(argv, cwd: Path) -> float:
    run = run_once([sys.executable, "-c", RSS_WRAPPER, *map(str, argv)], cwd=cwd)
    return int(run.stdout.split()[1]) / 1024


def measure(tree: Path, runs: int, workdir: Path, seedlint_python: str) -> dict:
    files = python_files(tree)
    seedlint = [seedlint_python, "-m", "seedlint"]
    ruff = [venv_bin(workdir, "peers", "ruff"), "check", "--no-cache", "--select", "NPY002", "--quiet", "--exit-zero", "."]
    flake8_peer = [venv_bin(workdir, "peers", "flake8"), "--select=E9", "."]
    flake8_sdl = [seedlint_python, "-m", "flake8", "--select=E9,SDL", "."]
    row: dict = {"tree": tree.name, "modules": len(files)}
    log(f"{tree.name}: {len(files)} modules")
    row["ruff"], _ = timed(ruff, tree, runs)
    row["flake8 E9"], _ = timed(flake8_peer, tree, runs)
    row["flake8 E9,SDL"], flake8_run = timed(flake8_sdl, tree, runs, before=lambda: clear_cache(tree))
    row["cold"], cold = timed([*seedlint, "--no-cache", "-q", "."], tree, runs)
    with tempfile.NamedTemporaryFile(suffix=".json") as split:
        env = {**os.environ, "SEEDLINT_TIMINGS": split.name}
        row["cold --jobs 1"], serial = timed([*seedlint, "--no-cache", "--jobs", "1", "-q", "."], tree, 1, env=env)
        row["split"] = json.loads(Path(split.name).read_text() or "{}")
    clear_cache(tree)
    run_once([*seedlint, "-q", "."], cwd=tree)
    row["warm"], warm = timed([*seedlint, "-q", "."], tree, runs)
    row["peak MB"] = peak_rss_mb([*seedlint, "--no-cache", "-q", "."], tree)
    script = training_script(files)
    if script is not None:
        relative = script.relative_to(tree)
        row["script"] = str(relative)
        row["1 file cold"], _ = timed([*seedlint, "--no-cache", "-q", relative], tree, runs)
        run_once([*seedlint, "-q", "."], cwd=tree)
        row["1 file warm"], _ = timed([*seedlint, "-q", relative], tree, runs, before=lambda: os.utime(script))
    row["same findings"] = findings(cold) == findings(serial) == findings(warm)
    row["flake8 agrees"] = sorted(f.replace("./", "", 1) for f in findings(flake8_run)) == findings(cold)
    row["findings"] = len(findings(cold))
    clear_cache(tree)
    return row


def ratio(value, reference) -> str:
    return f"{value / reference:.1f}x" if value and reference else "-"


def report(rows: list[dict], runs: int, load_before: str) -> str:
    lines = [
        "# seedlint on repository checkouts",
        "",
        f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; nproc {os.cpu_count()};"
        f" load before {load_before}, after {load_average()}",
        f"- runs per measure: {runs} (median); seconds are wall-clock; ratios divide by ruff NPY002 in the same run",
        "",
        "| checkout | modules | ruff s | seedlint cold | warm | cold ÷ ruff | warm ÷ ruff | flake8 E9,SDL ÷ E9 | 1 file cold | 1 file warm | peak MB | findings | same findings | flake8 agrees |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r['tree']} | {r['modules']} | {r['ruff']:.2f} | {r['cold']:.2f} | {r['warm']:.2f} | {ratio(r['cold'], r['ruff'])} |"
            f" {ratio(r['warm'], r['ruff'])} | {ratio(r['flake8 E9,SDL'], r['flake8 E9'])} | {r.get('1 file cold', 0):.2f} |"
            f" {r.get('1 file warm', 0):.2f} | {r['peak MB']:.0f} | {r['findings']} | {'yes' if r['same findings'] else 'NO'} |"
            f" {'yes' if r['flake8 agrees'] else 'NO'} |"
        )
    phases = ["discovery", "read", "prefilter", "parse", "facts", "rules"]
    lines += [
        "",
        "Time split of `seedlint --no-cache --jobs 1` (seconds; `facts ÷ parse` is the facts walk over plain "
        "`libcst.parse_module`; `rules ÷ parse` the rules with their analysis):",
        "",
        "| checkout | cold --jobs 1 | " + " | ".join(phases) + " | facts ÷ parse | rules ÷ parse |",
        "| --- | ---: | " + " | ".join("---:" for _ in phases) + " | ---: | ---: |",
    ]
    for r in rows:
        split = r["split"]
        parse = split.get("parse", 0)
        lines.append(
            f"| {r['tree']} | {r['cold --jobs 1']:.2f} | " + " | ".join(f"{split.get(p, 0):.2f}" for p in phases)
            + f" | {ratio(split.get('facts', 0), parse)} | {ratio(split.get('rules', 0), parse)} |"
        )
    lines += ["", "One changed file: " + "; ".join(f"{r['tree']}: `{r.get('script', '-')}`" for r in rows), ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", type=Path, required=True, help="a repository checkout (repeatable)")
    parser.add_argument("--runs", type=int, default=1, help="runs per measure (median; default 1)")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "seedlint-bench",
                        help="where the peers virtualenv is kept")
    parser.add_argument("--seedlint-python", default=sys.executable, help="the interpreter whose seedlint is measured")
    parser.add_argument("--output", type=Path, default=RESULTS_DIR / "latest.md")
    args = parser.parse_args(argv)
    ensure_venv(args.workdir, "peers", PEERS)
    load_before = load_average()
    rows = [measure(tree.resolve(), args.runs, args.workdir, args.seedlint_python) for tree in args.tree]
    text = report(rows, args.runs, load_before)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
