"""``seedlint --fix --unsafe-fixes`` over real ML libraries: it must never break code.

Usage:
    python bench/real_trees_fix.py [--quick] [--workdir DIR] [--keep]

Downloads pinned sdists (a wheel when a project publishes no sdist) of real ML projects
from the package registry with ``pip download --no-deps`` (nothing is imported or
installed), copies their ``.py`` files into a fresh tree and runs, in order:

1. ``seedlint --diff --unsafe-fixes``: the files a fix will touch;
2. ``seedlint --fix --unsafe-fixes``, then checks that every file that compiled before
   still compiles, that exactly the files named by the diff changed (every other file is
   byte-identical), and that each changed file equals the diff's promise;
3. a second ``--fix``, which must change nothing (idempotence);
4. a final check in JSON, which must report nothing fixable.

It prints the counts and exits 1 if any check fails. ``--quick`` uses one project
(timm, a few hundred modules); the test suite runs that through ``verify_tree``.
Standard library only; seedlint runs as ``python -m seedlint`` from this interpreter.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterator, List, Sequence, Set, Tuple

FULL_SOURCES = [
    ("timm", "1.0.9"),
    ("lightning", "2.4.0"),
    ("torchvision", "0.19.0"),
    ("diffusers", "0.30.0"),
    ("transformers", "4.44.0"),
    ("kornia", "0.7.3"),
    ("pytorch-lightning", "1.9.5"),
    ("accelerate", "0.33.0"),
    ("monai", "1.3.2"),
    ("nemo_toolkit", "1.23.0"),
    ("torchmetrics", "1.4.0"),
    ("mmengine", "0.10.4"),
]
QUICK_SOURCES = [("timm", "1.0.9")]


class RegistryUnreachable(RuntimeError):
    """pip could not download a pinned archive (no network, no registry)."""


def download(name: str, version: str, into: Path, binary_only: bool = False) -> Path:
    """The archive of ``name==version``: an sdist when there is one (unless
    ``binary_only``), else a wheel."""
    dest = into / f"{name}-{version}"
    found = sorted(dest.glob("*")) if dest.is_dir() else []
    if found:
        return found[0]
    base = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--disable-pip-version-check",
            "-d", str(dest), f"{name}=={version}"]
    errors = []
    kinds = [["--no-binary", ":all:"], ["--only-binary", ":all:"]]
    for kind in kinds[1:] if binary_only else kinds:
        completed = subprocess.run(base + kind, capture_output=True, text=True)
        found = sorted(dest.glob("*")) if dest.is_dir() else []
        if completed.returncode == 0 and found:
            return found[0]
        errors.append(completed.stderr.strip().splitlines()[-1:] or ["(no output)"])
    raise RegistryUnreachable(f"cannot download {name}=={version}: {errors}")


def python_members(archive: Path) -> Iterator[Tuple[str, bytes]]:
    """(relative path, bytes) of every ``.py`` file in an sdist or wheel."""
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as zipped:
            for info in zipped.infolist():
                if info.filename.endswith(".py") and not info.is_dir():
                    yield info.filename, zipped.read(info)
        return
    with tarfile.open(archive) as tarred:
        for member in tarred.getmembers():
            if member.isfile() and member.name.endswith(".py"):
                yield member.name, tarred.extractfile(member).read()


def extract_python(archive: Path, dest: Path) -> int:
    count = 0
    for relative, data in python_members(archive):
        parts = Path(relative).parts
        if not parts or Path(relative).is_absolute() or ".." in parts:
            continue
        target = dest.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        count += 1
    return count


def build_tree(sources: Sequence[Tuple[str, str]], downloads: Path, tree: Path) -> None:
    for name, version in sources:
        extract_python(download(name, version, downloads), tree / f"{name}-{version}")


# ---------------------------------------------------------------------------- checks


@dataclass
class Report:
    files_checked: int = 0
    compiled_before: int = 0
    still_compiling: int = 0
    files_fixed: int = 0
    promised_by_diff: int = 0
    idempotent: bool = False
    fixable_after: int = 0
    diagnostics_before: Dict[str, int] = field(default_factory=dict)
    diagnostics_after: Dict[str, int] = field(default_factory=dict)
    input_errors: int = 0
    seconds_fix: float = 0.0
    failures: List[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def lines(self) -> List[str]:
        return [
            f"files checked:              {self.files_checked}",
            f"compiled before:            {self.compiled_before}",
            f"still compiling after fix:  {self.still_compiling} / {self.compiled_before}",
            f"files fixed:                {self.files_fixed} (diff promised {self.promised_by_diff})",
            f"second --fix idempotent:    {'yes' if self.idempotent else 'NO'}",
            f"fixable after --fix:        {self.fixable_after}",
            f"diagnostics before fix:     {dict(sorted(self.diagnostics_before.items()))}",
            f"diagnostics after fix:      {dict(sorted(self.diagnostics_after.items()))}",
            f"inputs seedlint could not check (stderr lines): {self.input_errors}",
            f"--fix wall time:            {self.seconds_fix:.1f} s",
            "result:                     " + ("PASS" if self.ok else "FAIL\n  " + "\n  ".join(self.failures)),
        ]


def seedlint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "seedlint", *args], cwd=cwd, capture_output=True, text=True)


def snapshot(tree: Path) -> Dict[str, bytes]:
    return {str(p.relative_to(tree)): p.read_bytes() for p in sorted(tree.rglob("*.py")) if p.is_file()}


def compiles(data: bytes, name: str) -> bool:
    try:
        compile(data, name, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def files_in_diff(diff: str) -> Set[str]:
    return {m.group(1) for m in re.finditer(r"^\+\+\+ b/(.+?)\s*$", diff, re.MULTILINE)}


def diagnostics_by_code(tree: Path, *extra: str) -> Tuple[Dict[str, int], int, int]:
    """(count per code, fixable count, stderr lines) of a JSON check of the tree."""
    completed = seedlint("--format", "json", "--unsafe-fixes", *extra, ".", cwd=tree)
    if completed.returncode not in (0, 1, 2) or not completed.stdout.strip().startswith("{"):
        raise RuntimeError(f"seedlint --format json failed ({completed.returncode}): {completed.stderr[-2000:]}")
    items = json.loads(completed.stdout)["diagnostics"]
    counts = collections.Counter(item["code"] for item in items)
    return dict(counts), sum(1 for item in items if item["fixable"]), len(completed.stderr.splitlines())


def verify_tree(tree: Path) -> Report:
    """Run the four steps on ``tree`` (modified in place) and return the counts."""
    report = Report()
    before = snapshot(tree)
    report.files_checked = len(before)
    compiled = {name for name, data in before.items() if compiles(data, name)}
    report.compiled_before = len(compiled)
    report.diagnostics_before, _, report.input_errors = diagnostics_by_code(tree)

    diff = seedlint("--diff", "--unsafe-fixes", ".", cwd=tree)
    promised = {str(Path(p)) for p in files_in_diff(diff.stdout)}
    report.promised_by_diff = len(promised)

    start = time.perf_counter()
    fixed = seedlint("--fix", "--unsafe-fixes", ".", cwd=tree)
    report.seconds_fix = time.perf_counter() - start
    if "Traceback" in fixed.stderr:
        report.failures.append(f"--fix crashed: {fixed.stderr[-2000:]}")
    after = snapshot(tree)
    changed = {name for name in before if after.get(name) != before[name]}
    report.files_fixed = len(changed)
    report.still_compiling = sum(1 for name in compiled if compiles(after[name], name))
    if report.still_compiling != report.compiled_before:
        broken = sorted(name for name in compiled if not compiles(after[name], name))
        report.failures.append(f"no longer compile: {broken[:20]}")
    if changed != promised:
        report.failures.append(f"changed files differ from --diff: only changed {sorted(changed - promised)[:10]}, "
                               f"only promised {sorted(promised - changed)[:10]}")
    if set(after) != set(before):
        report.failures.append(f"files appeared or vanished: {sorted(set(after) ^ set(before))[:10]}")

    again = seedlint("--fix", "--unsafe-fixes", ".", cwd=tree)
    report.idempotent = snapshot(tree) == after and "Traceback" not in again.stderr
    if not report.idempotent:
        report.failures.append("a second --fix changed files")

    report.diagnostics_after, report.fixable_after, _ = diagnostics_by_code(tree)
    if report.fixable_after:
        report.failures.append(f"{report.fixable_after} diagnostics still fixable after --fix")
    return report


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one project (timm) instead of all")
    parser.add_argument("--workdir", type=Path, help="where downloads are kept (default: a temporary directory)")
    parser.add_argument("--keep", action="store_true", help="keep the fixed tree and print its path")
    args = parser.parse_args(list(argv) or None)
    sources = QUICK_SOURCES if args.quick else FULL_SOURCES
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="seedlint-real-trees-"))
    tree = Path(tempfile.mkdtemp(prefix="seedlint-fix-tree-"))
    try:
        build_tree(sources, workdir / "downloads", tree)
        print("sources: " + ", ".join(f"{n}=={v}" for n, v in sources))
        report = verify_tree(tree)
    finally:
        if args.keep:
            print(f"tree kept at {tree}")
        else:
            shutil.rmtree(tree, ignore_errors=True)
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    print("\n".join(report.lines()))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
