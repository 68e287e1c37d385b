"""Run seedlint over the real-repository panel and compare two runs finding by finding.

The panel (``bench/panel.json``) lists public PyTorch training repositories,
each pinned to a commit, with its style and the name of its local checkout
directory. The checkouts themselves are never committed: ``fetch-instructions``
prints how to recreate them.

Usage:
    python bench/run_panel.py run --checkouts DIR --out DIR
        [--seedlint-src SRC] [--python PY] [--only REPO ...] [--jobs N]
        [--timeout S] [--panel FILE]
    python bench/run_panel.py compare OLD_DIR NEW_DIR [--panel FILE]
    python bench/run_panel.py fetch-instructions [--checkouts DIR] [--panel FILE]

``run`` executes ``PY -m seedlint --format json --no-cache --jobs N .`` with
each checkout as the working directory (given an empty ``.git`` folder first when it has
none, as a clone has) and writes ``OUT/<checkout>.json``::

    {"repo", "commit", "seconds", "exit", "stderr_lines": [...],
     "findings": [...],          # seedlint's JSON array, paths relative to the checkout
     "seedlint": "<the seedlint/__init__.py that ran>"}

With ``--seedlint-src SRC`` the child gets ``PYTHONPATH=SRC``, so an older
source tree (e.g. a git worktree of an earlier commit) runs instead of the
installed seedlint; the script checks which ``seedlint`` is imported before
it starts and stops if it is not the one under SRC. ``PYTHONSAFEPATH=1``
keeps the checkout's own top-level modules from shadowing the modules
seedlint imports (Python >= 3.11; as with the ``seedlint`` console script,
the current directory is then not on ``sys.path``).

``compare`` matches findings by (path, line, column, code) and prints, per
repository, those that vanished, appeared or changed message, then a table
of counts per rule.

Standard library only.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
DEFAULT_PANEL = BENCH_DIR / "panel.json"
RUN_META = "_run.json"


# --------------------------------------------------------------------------- panel


def load_panel(path: Path) -> list[dict]:
    """Return the panel entries: dicts with repo, commit, style, checkout."""
    entries = json.loads(Path(path).read_text(encoding="utf-8"))
    for entry in entries:
        missing = {"repo", "commit", "style", "checkout"} - entry.keys()
        if missing:
            raise SystemExit(f"{path}: entry {entry!r} lacks {sorted(missing)}")
    return entries


def select_entries(entries: list[dict], only: list[str] | None) -> list[dict]:
    """Keep the entries named by --only (as owner/name or as checkout name)."""
    if not only:
        return entries
    wanted = set(only)
    chosen = [e for e in entries if e["repo"] in wanted or e["checkout"] in wanted]
    unknown = wanted - {e["repo"] for e in chosen} - {e["checkout"] for e in chosen}
    if unknown:
        raise SystemExit(f"not in the panel: {', '.join(sorted(unknown))}")
    return chosen


# --------------------------------------------------------------------------- run


def child_env(seedlint_src: Path | None) -> dict[str, str]:
    """Environment for seedlint: PYTHONPATH=SRC when given, cwd kept off sys.path."""
    env = dict(os.environ)
    env["PYTHONSAFEPATH"] = "1"
    if seedlint_src is not None:
        env["PYTHONPATH"] = str(seedlint_src)
    return env


def imported_seedlint(python: str, env: dict[str, str]) -> str:
    """Return the path of the seedlint package that PY imports in ENV."""
    probe = "import seedlint; print(seedlint.__file__)"
    proc = subprocess.run(
        [python, "-c", probe], env=env, cwd="/", capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise SystemExit(f"{python} cannot import seedlint:\n{proc.stderr}")
    return proc.stdout.strip()


def check_seedlint_source(imported: str, seedlint_src: Path | None) -> None:
    """Stop when --seedlint-src was given but another seedlint is imported."""
    if seedlint_src is None:
        return
    package_dir = Path(imported).resolve().parent
    if seedlint_src.resolve() not in package_dir.parents:
        raise SystemExit(
            f"seedlint is imported from {package_dir}, not from {seedlint_src}: "
            "the installed seedlint shadows PYTHONPATH; use a separate venv"
        )


def seedlint_command(python: str, jobs: int) -> list[str]:
    """The command run inside each checkout."""
    return [python, "-m", "seedlint", "--format", "json", "--no-cache",
            "--jobs", str(jobs), "."]


def relative_path(path: str, checkout: Path) -> str:
    """A finding's path relative to the checkout, with forward slashes."""
    candidate = Path(path)
    if candidate.is_absolute():
        candidate = Path(os.path.relpath(candidate, checkout))
    return candidate.as_posix().removeprefix("./")


def parse_findings(stdout: str, checkout: Path) -> tuple[list[dict] | None, str | None]:
    """Decode seedlint's JSON report (an object with "diagnostics"; older versions printed
    a bare array); return (findings, error)."""
    try:
        findings = json.loads(stdout)
    except json.JSONDecodeError as exc:
        return None, f"stdout is not JSON ({exc}); first bytes: {stdout[:200]!r}"
    if isinstance(findings, dict) and isinstance(findings.get("diagnostics"), list):
        findings = findings["diagnostics"]
    if not isinstance(findings, list):
        return None, f"stdout is JSON but not an array: {type(findings).__name__}"
    for finding in findings:
        if isinstance(finding, dict) and "path" in finding:
            finding["path"] = relative_path(finding["path"], checkout)
    return findings, None


def execute(command: list[str], cwd: Path, env: dict[str, str],
            timeout: float | None) -> tuple[int | None, str, str]:
    """Run COMMAND; on timeout kill its whole process group (seedlint's workers too)."""
    proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, errors="replace",
                            start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
        return proc.returncode, stdout, stderr
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, stderr = proc.communicate()
        return None, "", stderr + f"\n[run_panel] killed after {timeout} s\n"


def as_cloned(checkout: Path) -> None:
    """Give a checkout extracted from an archive the ``.git`` folder a clone has: users run
    seedlint in clones, where ``.git`` marks the project root; without it a repository that
    has no packaging file has no root, and its README's install commands and documented
    commands are not read."""
    marker = checkout / ".git"
    if not marker.exists():
        marker.mkdir()


def run_one(entry: dict, checkout: Path, command: list[str], env: dict[str, str],
            timeout: float | None) -> dict:
    """Run seedlint in one checkout and return the result record."""
    as_cloned(checkout)
    start = time.monotonic()
    exit_code, stdout, stderr = execute(command, checkout, env, timeout)
    seconds = round(time.monotonic() - start, 2)
    if exit_code is None:
        findings, error = None, "timed out"
    else:
        findings, error = parse_findings(stdout, checkout)
    record = {
        "repo": entry["repo"],
        "commit": entry["commit"],
        "seconds": seconds,
        "exit": exit_code,
        "stderr_lines": [line for line in stderr.splitlines() if line.strip()],
        "findings": findings,
    }
    if error:
        record["error"] = error
    return record


def rule_counts(findings: list[dict] | None) -> collections.Counter:
    """Number of findings per rule code."""
    return collections.Counter(f.get("code", "?") for f in findings or [])


def summary_line(record: dict) -> str:
    """One line: repo, findings per rule, seconds, exit, stderr lines."""
    counts = rule_counts(record["findings"])
    rules = " ".join(f"{code}={n}" for code, n in sorted(counts.items())) or "-"
    total = "ERROR" if record["findings"] is None else sum(counts.values())
    return (f"{record['repo']:<42} findings={total:<4} {rules:<40} "
            f"{record['seconds']:>8.2f}s exit={record['exit']} "
            f"stderr={len(record['stderr_lines'])}")


def write_json(path: Path, data) -> None:
    """Write DATA as indented JSON, atomically."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def cmd_run(args: argparse.Namespace) -> int:
    """The `run` sub-command."""
    entries = select_entries(load_panel(args.panel), args.only)
    src = Path(args.seedlint_src).resolve() if args.seedlint_src else None
    env = child_env(src)
    imported = imported_seedlint(args.python, env)
    check_seedlint_source(imported, src)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    command = seedlint_command(args.python, args.jobs)
    print(f"seedlint: {imported}\ncommand:  {' '.join(command)}  (cwd = each checkout)")
    write_json(out / RUN_META, {
        "started": datetime.datetime.now().isoformat(timespec="seconds"),
        "seedlint": imported, "python": args.python, "command": command,
        "seedlint_src": str(src) if src else None,
    })
    missing = []
    for entry in entries:
        checkout = Path(args.checkouts) / entry["checkout"]
        if not checkout.is_dir():
            missing.append(entry["repo"])
            print(f"{entry['repo']:<42} MISSING: no checkout at {checkout}")
            continue
        record = run_one(entry, checkout.resolve(), command, env, args.timeout)
        record["seedlint"] = imported
        write_json(out / f"{entry['checkout']}.json", record)
        print(summary_line(record), flush=True)
    if missing:
        print(f"{len(missing)} checkout(s) missing: {', '.join(missing)}")
    return 0


# --------------------------------------------------------------------------- compare


def load_results(directory: Path) -> dict[str, dict]:
    """Result records of one run, keyed by repo."""
    records = {}
    for path in sorted(Path(directory).glob("*.json")):
        if path.name.startswith("_"):
            continue
        record = json.loads(path.read_text(encoding="utf-8"))
        records[record["repo"]] = record
    return records


def finding_key(finding: dict) -> tuple:
    """Identity of a finding across runs."""
    return (finding.get("path"), finding.get("line"), finding.get("column"),
            finding.get("code"))


def group_by_key(findings: list[dict] | None) -> dict[tuple, list[str]]:
    """Messages per key (a key may carry several findings)."""
    groups: dict[tuple, list[str]] = collections.defaultdict(list)
    for finding in findings or []:
        groups[finding_key(finding)].append(finding.get("message", ""))
    return groups


def diff_findings(old: list[dict] | None, new: list[dict] | None):
    """Return (vanished, appeared, changed) as lists of (key, message[s])."""
    old_groups, new_groups = group_by_key(old), group_by_key(new)
    vanished, appeared, changed = [], [], []
    for key in sorted(old_groups.keys() | new_groups.keys(), key=sort_key):
        before = collections.Counter(old_groups.get(key, []))
        after = collections.Counter(new_groups.get(key, []))
        gone = sorted((before - after).elements())
        came = sorted((after - before).elements())
        for old_msg, new_msg in zip(gone, came):
            changed.append((key, old_msg, new_msg))
        vanished += [(key, msg) for msg in gone[len(came):]]
        appeared += [(key, msg) for msg in came[len(gone):]]
    return vanished, appeared, changed


def sort_key(key: tuple) -> tuple:
    """Sort keys whose parts may be None."""
    return tuple("" if part is None else str(part).zfill(8) if isinstance(part, int)
                 else str(part) for part in key)


def format_key(key: tuple) -> str:
    """`path:line:column: CODE`, as in seedlint's text output."""
    path, line, column, code = key
    return f"{path}:{line}:{column}: {code}"


def print_repo_diff(repo: str, old: dict | None, new: dict | None) -> tuple[int, int, int]:
    """Print one repository's differences; return the counts."""
    if old is None or new is None:
        print(f"## {repo}: only in {'NEW' if old is None else 'OLD'}")
        return 0, 0, 0
    vanished, appeared, changed = diff_findings(old["findings"], new["findings"])
    header = (f"## {repo}: {len(vanished)} vanished, {len(appeared)} appeared, "
              f"{len(changed)} changed; {old['seconds']}s -> {new['seconds']}s; "
              f"exit {old['exit']} -> {new['exit']}; stderr "
              f"{len(old['stderr_lines'])} -> {len(new['stderr_lines'])}")
    print(header)
    if old["commit"] != new["commit"]:
        print(f"   commit differs: {old['commit']} -> {new['commit']}")
    for label, record in (("OLD", old), ("NEW", new)):
        if record["findings"] is None:
            print(f"   {label} run has no findings array: {record.get('error')}")
    for key, msg in vanished:
        print(f"   - {format_key(key)} {msg}")
    for key, msg in appeared:
        print(f"   + {format_key(key)} {msg}")
    for key, old_msg, new_msg in changed:
        print(f"   ~ {format_key(key)}\n       old: {old_msg}\n       new: {new_msg}")
    return len(vanished), len(appeared), len(changed)


def print_rule_table(old_runs: dict[str, dict], new_runs: dict[str, dict]) -> None:
    """Counts per rule over all repositories: old, new and the differences."""
    table: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for repo in old_runs.keys() | new_runs.keys():
        old = old_runs.get(repo, {}).get("findings")
        new = new_runs.get(repo, {}).get("findings")
        for code, n in rule_counts(old).items():
            table[code]["old"] += n
        for code, n in rule_counts(new).items():
            table[code]["new"] += n
        if repo in old_runs and repo in new_runs:
            vanished, appeared, changed = diff_findings(old, new)
            for kind, items in (("vanished", vanished), ("appeared", appeared),
                                ("changed", changed)):
                for item in items:
                    table[item[0][3]][kind] += 1
    columns = ("old", "new", "vanished", "appeared", "changed")
    print("\n| rule | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    totals = collections.Counter()
    for code in sorted(table):
        totals.update(table[code])
        print(f"| {code} | " + " | ".join(str(table[code][c]) for c in columns) + " |")
    print("| total | " + " | ".join(str(totals[c]) for c in columns) + " |")


def cmd_compare(args: argparse.Namespace) -> int:
    """The `compare` sub-command."""
    old_runs, new_runs = load_results(args.old), load_results(args.new)
    order = [e["repo"] for e in load_panel(args.panel)]
    repos = [r for r in order if r in old_runs or r in new_runs]
    repos += sorted((old_runs.keys() | new_runs.keys()) - set(order))
    for repo in repos:
        print_repo_diff(repo, old_runs.get(repo), new_runs.get(repo))
    print_rule_table(old_runs, new_runs)
    return 0


# --------------------------------------------------------------------------- fetch-instructions


FALLBACK = """\
# If `git archive` stops at a blob missing from the snapshot (usually an image
# or a PDF), extract the files one by one and skip the missing blobs:
git --git-dir="$DIR" ls-tree -r COMMIT | while IFS=$'\\t' read -r meta path; do
  set -- $meta; [ "$2" = blob ] && [ "$1" != 120000 ] || continue
  mkdir -p "$DEST/$(dirname "$path")"
  git --git-dir="$DIR" cat-file blob "$3" > "$DEST/$path" 2>/dev/null || rm -f "$DEST/$path"
done"""


def cmd_fetch_instructions(args: argparse.Namespace) -> int:
    """The `fetch-instructions` sub-command."""
    entries = load_panel(args.panel)
    print(f"""\
# The panel's checkouts are never committed. Recreate them in {args.checkouts}:
# for each repository, call the session's `fetch` tool with source
# github:OWNER/NAME; it answers with a bare git directory DIR (usually
# /work/.mirror/OWNER+NAME/repo). The snapshot may be newer than the pinned
# commit; the commit is in its history (check with `git cat-file -e COMMIT`).
# Then extract the pinned commit:
#
#   DEST={args.checkouts}/OWNER__NAME
#   mkdir -p "$DEST" && git --git-dir="$DIR" archive COMMIT | tar -x -C "$DEST"
#
{FALLBACK}
""")
    for entry in entries:
        owner_name = entry["repo"].replace("/", "+")
        print(f"# {entry['repo']}  ({entry['style']})\n"
              f"#   fetch github:{entry['repo']}\n"
              f"DIR=/work/.mirror/{owner_name}/repo; "
              f"DEST={args.checkouts}/{entry['checkout']}\n"
              f"mkdir -p \"$DEST\" && git --git-dir=\"$DIR\" archive {entry['commit']} "
              f"| tar -x -C \"$DEST\"\n")
    return 0


# --------------------------------------------------------------------------- CLI


def build_parser() -> argparse.ArgumentParser:
    """The command line: run, compare and fetch-instructions."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--panel", type=Path, default=DEFAULT_PANEL,
                        help="panel list (default: bench/panel.json)")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", parents=[common], help="run seedlint over the checkouts")
    run.add_argument("--checkouts", required=True, help="directory of the checkouts")
    run.add_argument("--out", required=True, help="directory for the result JSON files")
    run.add_argument("--seedlint-src", help="run the seedlint package under this src/ dir")
    run.add_argument("--python", default=sys.executable,
                     help="interpreter that runs seedlint (default: this one)")
    run.add_argument("--only", nargs="+", metavar="REPO",
                     help="owner/name (or checkout name) of the repositories to run")
    run.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                     help="seedlint --jobs (default: the number of cores)")
    run.add_argument("--timeout", type=float, default=3600,
                     help="seconds before one repository's run is killed (default 3600)")
    run.set_defaults(func=cmd_run)

    compare = sub.add_parser("compare", parents=[common],
                             help="compare two result directories")
    compare.add_argument("old", type=Path, metavar="OLD_DIR")
    compare.add_argument("new", type=Path, metavar="NEW_DIR")
    compare.set_defaults(func=cmd_compare)

    fetch = sub.add_parser("fetch-instructions", parents=[common],
                           help="how to recreate the checkouts")
    fetch.add_argument("--checkouts", default="/work/panel/checkouts",
                       help="where the checkouts go (default: /work/panel/checkouts)")
    fetch.set_defaults(func=cmd_fetch_instructions)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
