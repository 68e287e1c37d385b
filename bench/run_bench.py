"""Benchmark seedlint against ruff, flake8 and TorchFix on real ML source trees.

Usage:
    python bench/run_bench.py [--quick] [--runs N] [--workdir DIR]
                              [--torchfix-timeout S] [--torchfix-runs N]

The script (standard library only):

1. creates three virtualenvs in the work directory: ``peers`` (ruff, flake8),
   ``torchfix`` (TorchFix pins libcst<1.6 and registers a flake8 plugin, so it
   gets its own venv) and ``seedlint`` (flake8 plus seedlint built from a
   snapshot of this repository's working tree);
2. downloads pinned sdists of large ML projects, keeps their ``.py`` files,
   mixes in ~100 training scripts rendered from ``bench/templates/`` and
   derives 1/4 and 1/2 subsets of that tree for the memory-scaling runs;
3. times every tool (median of N runs), measures seedlint's peak RSS on the
   three tree sizes and checks that seedlint's findings do not depend on
   ``--jobs`` or on its cache;
4. prints markdown tables (timings, memory, the issue's targets with
   PASS/FAIL) and writes them to ``bench/results/package-tree.md``
   (``package-tree-quick.md`` with ``--quick``; ``latest.md`` is the
   repository-checkout table of ``bench/checkouts.py``).

A populated ``--workdir`` is reused: venvs, downloads and trees are only
rebuilt when their pinned specification changes; seedlint is reinstalled
from the working tree on every run.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import functools
import json
import os
import platform
import shutil
import signal
import statistics
import string
import subprocess
import sys
import tarfile
import tempfile
import time
import venv
import zipfile
from pathlib import Path
from typing import Callable

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
TEMPLATES_DIR = BENCH_DIR / "templates"
RESULTS_DIR = BENCH_DIR / "results"

FLAKE8 = "flake8==7.5.0"
VENVS = {
    "peers": ["ruff==0.17.6", FLAKE8],
    "torchfix": ["torchfix==0.7.0", FLAKE8],
    "seedlint": [FLAKE8],
}
FULL_SOURCES = [("diffusers", "0.30.0"), ("transformers", "4.44.0")]
QUICK_SOURCES = [("timm", "1.0.9"), ("lightning", "2.4.0")]
FULL_GENERATED = 100
QUICK_GENERATED = 25
SUBSETS = [("quarter", 4), ("half", 2)]

DATASETS = [
    "cifar",
    "imagenet",
    "coco",
    "laion",
    "librispeech",
    "wikitext",
    "kinetics",
    "celeba",
    "openwebtext",
    "mnist",
    "ade20k",
    "voc",
    "pile",
    "audioset",
    "cityscapes",
    "squad",
    "c4",
    "ucf101",
    "flowers",
    "fineweb",
]
SNAPSHOT_SKIP = shutil.ignore_patterns(
    ".git",
    ".venv",
    "venv",
    "__pycache__",
    "*.egg-info",
    "build",
    "dist",
    ".pytest_cache",
    ".ruff_cache",
    ".mypy_cache",
    ".hypothesis",
    ".seedlint_cache",
    "node_modules",
)
RSS_WRAPPER = (
    "import resource, subprocess, sys\n"
    "code = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL,"
    " stderr=subprocess.DEVNULL)\n"
    "print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def log(message: str) -> None:
    print(f"[bench] {message}", flush=True)


# --------------------------------------------------------------------------
# Process execution


@dataclasses.dataclass
class Run:
    seconds: float
    code: int | None
    stdout: str
    stderr: str
    timed_out: bool = False


def run_once(argv, cwd, env=None, timeout=None) -> Run:
    """Run argv in its own session; on timeout kill the whole process group."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
        return Run(time.perf_counter() - start, proc.returncode, out, err)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return Run(time.perf_counter() - start, None, out, err, timed_out=True)


def check_call(argv, **kwargs) -> str:
    result = subprocess.run(argv, check=False, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        tail = "\n".join((result.stdout + result.stderr).splitlines()[-15:])
        raise RuntimeError(f"{' '.join(map(str, argv))} failed:\n{tail}")
    return result.stdout


# --------------------------------------------------------------------------
# Virtualenvs


def venv_bin(workdir: Path, name: str, exe: str) -> Path:
    return workdir / "venvs" / name / "bin" / exe


def ensure_venv(workdir: Path, name: str, requirements: list[str]) -> None:
    path = workdir / "venvs" / name
    marker = path / ".bench-requirements"
    wanted = "\n".join(requirements)
    if marker.is_file() and marker.read_text() == wanted:
        return
    log(f"creating venv {name}: {' '.join(requirements)}")
    venv.EnvBuilder(with_pip=True, clear=True).create(path)
    pip = [str(path / "bin" / "python"), "-m", "pip", "install", "-q"]
    check_call(pip + requirements)
    marker.write_text(wanted)


def install_seedlint(workdir: Path, source: Path) -> str:
    """Install seedlint from a snapshot of source; return '' or an error."""
    snapshot = workdir / "seedlint-src"
    shutil.rmtree(snapshot, ignore_errors=True)

    def ignore(directory, names):
        skipped = set(SNAPSHOT_SKIP(directory, names))
        return skipped | {n for n in names if Path(directory, n).resolve() == workdir}

    shutil.copytree(source, snapshot, ignore=ignore, symlinks=True)
    env = dict(os.environ, SETUPTOOLS_SCM_PRETEND_VERSION="0.0.0+bench")
    python = str(venv_bin(workdir, "seedlint", "python"))
    log(f"installing seedlint from {source}")
    try:
        check_call([python, "-m", "pip", "uninstall", "-q", "-y", "seedlint"], env=env)
        check_call(
            [python, "-m", "pip", "install", "-q", str(snapshot), FLAKE8], env=env
        )
    except RuntimeError as exc:
        return str(exc)
    if not venv_bin(workdir, "seedlint", "seedlint").exists():
        return "package installed but it provides no `seedlint` command"
    return ""


# --------------------------------------------------------------------------
# Trees


@dataclasses.dataclass
class Tree:
    name: str
    path: Path
    modules: int
    lines: int
    composition: str
    sample_file: str = ""


def download(workdir: Path, name: str, version: str) -> Path:
    dest = workdir / "downloads" / f"{name}-{version}"
    found = sorted(dest.glob("*")) if dest.is_dir() else []
    if found:
        return found[0]
    log(f"downloading {name}=={version}")
    python = str(venv_bin(workdir, "peers", "python"))
    pip = [python, "-m", "pip", "download", "-q", "--no-deps", "-d", str(dest)]
    pip.append(f"{name}=={version}")
    try:
        check_call(pip + ["--no-binary", ":all:"])
    except RuntimeError:
        check_call(pip + ["--only-binary", ":all:"])
    return min(dest.glob("*"))


def archive_members(archive: Path):
    """Yield (relative path, bytes) for every .py file in an sdist or wheel."""
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                if info.filename.endswith(".py") and not info.is_dir():
                    yield info.filename, zf.read(info)
        return
    with tarfile.open(archive) as tf:
        for member in tf.getmembers():
            if member.isfile() and member.name.endswith(".py"):
                yield member.name.split("/", 1)[-1], tf.extractfile(member).read()


def extract_python(archive: Path, dest: Path) -> None:
    for rel, data in archive_members(archive):
        parts = Path(rel).parts
        if not parts or Path(rel).is_absolute() or ".." in parts:
            continue
        target = dest.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def template_values(index: int, stem: str) -> dict[str, str]:
    dataset = DATASETS[index % len(DATASETS)]
    name = f"{dataset}{index:03d}"
    return {
        "name": name,
        "filename": f"{stem}_{name}.py",
        "cls": dataset.capitalize() + f"{index:03d}",
        "dataset_title": dataset.upper(),
        "workers": str([0, 2, 4, 8, 16][index % 5]),
        "crop": str([224, 256, 512, 128][index % 4]),
        "noise": str([0.01, 0.02, 0.05][index % 3]),
        "epochs": str(10 + index % 20),
        "batch_size": str([32, 64, 128, 256][index % 4]),
        "lr": str([0.1, 0.01, 3e-4, 1e-3][index % 4]),
        "seed": str(index),
        "warmup": str(100 * (1 + index % 5)),
        "steps": str(1000 * (1 + index % 10)),
        "worker_init": "seed_worker" if index % 2 else "None",
    }


def add_generated(root: Path, count: int) -> list[Path]:
    """Render count training scripts from the templates, spread over root."""
    templates = sorted(TEMPLATES_DIR.glob("*.py.tmpl"))
    dirs = sorted({p.parent for p in root.rglob("*.py")})
    written = []
    for index in range(count):
        template = templates[index % len(templates)]
        stem = template.name.removesuffix(".py.tmpl")
        values = template_values(index, stem)
        target = dirs[index * len(dirs) // count] / values["filename"]
        target.write_text(string.Template(template.read_text()).substitute(values))
        written.append(target)
    return written


def tree_stats(root: Path) -> tuple[int, int]:
    files = list(root.rglob("*.py"))
    return len(files), sum(p.read_bytes().count(b"\n") for p in files)


def link_subset(full: Path, dest: Path, step: int) -> None:
    files = sorted(full.rglob("*.py"))
    for path in files[::step]:
        target = dest / path.relative_to(full)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(path, target)
        except OSError:
            shutil.copy2(path, target)


def build_full_tree(workdir: Path, path: Path, sources, generated: int) -> Tree:
    archives = [download(workdir, name, version) for name, version in sources]
    shutil.rmtree(path, ignore_errors=True)
    for archive in archives:
        extract_python(archive, path / archive_stem(archive))
    scripts = add_generated(path, generated)
    sample = next(p for p in scripts if p.name.startswith("train_classifier"))
    composition = " + ".join(f"{n} {v}" for n, v in sources)
    composition += f" + {generated} generated training scripts"
    return Tree(
        "full", path, *tree_stats(path), composition, str(sample.relative_to(path))
    )


def subset_tree(full: Tree, path: Path, name: str, step: int) -> Tree:
    shutil.rmtree(path, ignore_errors=True)
    link_subset(full.path, path, step)
    return Tree(name, path, *tree_stats(path), f"1 in {step} modules of the full tree")


def build_trees(workdir: Path, label: str, sources, generated: int) -> list[Tree]:
    """Return the quarter, half and full trees, building them if needed."""
    spec = {
        "sources": sources,
        "generated": generated,
        "templates": {p.name: p.read_text() for p in TEMPLATES_DIR.glob("*.tmpl")},
    }
    spec = json.loads(json.dumps(spec))
    meta_path = workdir / "trees" / f"{label}.json"
    if meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        if meta["spec"] == spec:
            return [Tree(**{**t, "path": Path(t["path"])}) for t in meta["trees"]]
    full = build_full_tree(
        workdir, workdir / "trees" / f"{label}-full", sources, generated
    )
    trees = [
        subset_tree(full, workdir / "trees" / f"{label}-{name}", name, step)
        for name, step in SUBSETS
    ] + [full]
    saved = [{**dataclasses.asdict(t), "path": str(t.path)} for t in trees]
    meta_path.write_text(json.dumps({"spec": spec, "trees": saved}, indent=1))
    return trees


def archive_stem(archive: Path) -> str:
    name = archive.name
    for suffix in (".tar.gz", ".tgz", ".tar.bz2", ".zip", ".whl"):
        name = name.removesuffix(suffix)
    return name.split("-py")[0]


# --------------------------------------------------------------------------
# Measurements


@dataclasses.dataclass
class Result:
    label: str
    tree: str
    times: list[float] = dataclasses.field(default_factory=list)
    codes: list = dataclasses.field(default_factory=list)
    timed_out: bool = False
    error: str = ""
    stderr_lines: int = 0
    stdout_lines: int = 0

    @property
    def ok(self) -> bool:
        return bool(self.times) and not self.error

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def minimum(self) -> float:
        return min(self.times)


@dataclasses.dataclass
class Job:
    label: str
    argv: list[str]
    tree: Tree
    accept: tuple = (0, 1)
    before: Callable[[], None] | None = None
    env: dict | None = None
    timeout: float | None = None
    requires: str = ""


def record(result: Result, run: Run, job: Job) -> None:
    result.codes.append(run.code)
    result.stderr_lines = len(run.stderr.splitlines())
    result.stdout_lines = len(run.stdout.splitlines())
    if run.timed_out:
        result.timed_out = True
        result.times.append(float(job.timeout))
        log(f"  {result.label}: timed out after {job.timeout:.0f} s")
    elif run.code not in job.accept:
        last = (
            run.stderr.strip().splitlines() or run.stdout.strip().splitlines() or [""]
        )[-1]
        result.error = f"exit {run.code}: {last[:160]}"
        log(f"  {result.label}: {result.error}")
    else:
        result.times.append(run.seconds)
        log(f"  {result.label} on {result.tree}: {run.seconds:.3f} s (exit {run.code})")


def run_rounds(jobs: list[Job], runs: int) -> list[Result]:
    """Run every job once per round, so background load hits all tools alike."""
    results = {job.label: Result(job.label, job.tree.name) for job in jobs}
    for job in jobs:
        if not Path(job.argv[0]).exists():
            results[job.label].error = f"{Path(job.argv[0]).name} is not installed"
    for _ in range(runs):
        for job in jobs:
            result = results[job.label]
            if job.requires and results[job.requires].error:
                result.error = result.error or f"skipped: {job.requires} failed"
            if result.error or result.timed_out:
                continue
            if job.before:
                job.before()
            record(result, run_once(job.argv, job.tree.path, job.env, job.timeout), job)
    return list(results.values())


def clear_seedlint_caches(tree: Tree, workdir: Path) -> None:
    for cache in list(tree.path.rglob(".seedlint_cache")):
        if cache.is_dir():
            shutil.rmtree(cache)
        else:
            cache.unlink()
    shutil.rmtree(workdir / "xdg-cache", ignore_errors=True)


def _pss_kb(pid: int) -> int:
    """Proportional set size: shared pages (a forked worker's copy of its parent) are
    divided between the processes that share them, so a sum over processes is real."""
    for line in Path("/proc", str(pid), "smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    raise OSError("no Pss line")


def process_tree_memory_kb(root_pid: int) -> tuple[int, int]:
    """Sum the RSS and the PSS of every descendant of root_pid (not root_pid itself)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path("/proc", entry.name, "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    rss = pss = 0
    stack = list(children.get(root_pid, []))
    while stack:
        pid = stack.pop()
        try:
            resident = (
                int(Path("/proc", str(pid), "statm").read_text().split()[1]) * PAGE_KB
            )
        except OSError:
            resident = 0
        rss += resident
        try:
            pss += _pss_kb(pid)
        except (OSError, ValueError):
            pss += resident
        stack.extend(children.get(pid, []))
    return rss, pss


@dataclasses.dataclass
class Memory:
    tree: Tree
    seconds: float = 0.0
    max_rss_mb: float = 0.0
    tree_rss_mb: float = 0.0
    tree_pss_mb: float = 0.0
    error: str = ""


def measure_memory(argv, tree: Tree, env) -> Memory:
    """Peak RSS of argv in a fresh wrapper process, plus sampled total RSS."""
    memory = Memory(tree)
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", RSS_WRAPPER, *argv],
        cwd=tree.path,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    peak = peak_pss = 0
    while proc.poll() is None:
        rss, pss = process_tree_memory_kb(proc.pid)
        peak, peak_pss = max(peak, rss), max(peak_pss, pss)
        time.sleep(0.02)
    memory.seconds = time.perf_counter() - start
    with proc.stdout:
        reported = proc.stdout.read().split()
    if len(reported) != 2 or int(reported[0]) not in (0, 1, 2):
        memory.error = f"exit {reported[0] if reported else proc.returncode}"
        return memory
    memory.max_rss_mb = int(reported[1]) / 1024
    memory.tree_rss_mb = peak / 1024
    memory.tree_pss_mb = peak_pss / 1024
    log(
        f"  memory on {tree.name}: max process {memory.max_rss_mb:.0f} MB, "
        f"process tree {memory.tree_rss_mb:.0f} MB RSS / {memory.tree_pss_mb:.0f} MB PSS, "
        f"{memory.seconds:.2f} s"
    )
    return memory


def parse_findings(text: str) -> list[str]:
    """Canonical, sorted list of findings from seedlint's JSON output."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = [json.loads(line) for line in text.splitlines() if line.strip()]
    if isinstance(data, dict):
        lists = [v for k, v in data.items() if isinstance(v, list)]
        preferred = [
            data[k]
            for k in ("findings", "results", "diagnostics", "violations")
            if isinstance(data.get(k), list)
        ]
        data = (preferred or lists or [[data]])[0]
    return sorted(json.dumps(item, sort_keys=True) for item in data)


def check_equality(seedlint: Path, tree: Tree, workdir: Path, env) -> dict:
    """Run seedlint --format json five ways and compare the finding sets."""
    base = [str(seedlint), "--format", "json"]
    variants = [
        ("--jobs 1 --no-cache", base + ["--jobs", "1", "--no-cache", "."], True),
        ("default jobs --no-cache", base + ["--no-cache", "."], True),
        ("cache fill", base + ["."], True),
        ("warm cache", base + ["."], False),
        ("--jobs 1 warm cache", base + ["--jobs", "1", "."], False),
    ]
    outcome = {"variants": {}, "error": ""}
    for name, argv, clear in variants:
        if clear:
            clear_seedlint_caches(tree, workdir)
        run = run_once(argv, tree.path, env)
        if run.code not in (0, 1, 2):
            outcome["error"] = f"{name}: exit {run.code}"
            return outcome
        try:
            outcome["variants"][name] = parse_findings(run.stdout)
        except (json.JSONDecodeError, TypeError, AttributeError) as exc:
            outcome["error"] = f"{name}: unparsable JSON ({exc})"
            return outcome
    found = list(outcome["variants"].values())
    outcome["count"] = len(found[0])
    outcome["identical"] = all(f == found[0] for f in found)
    log(f"  findings: {outcome['count']}, identical: {outcome['identical']}")
    return outcome


# --------------------------------------------------------------------------
# The benchmark proper


def seedlint_env(workdir: Path) -> dict:
    return dict(os.environ, XDG_CACHE_HOME=str(workdir / "xdg-cache"))


def seedlint_jobs(workdir: Path, tree: Tree) -> list[Job]:
    exe = str(venv_bin(workdir, "seedlint", "seedlint"))
    one = dataclasses.replace(tree, name="1 file")
    clear = functools.partial(clear_seedlint_caches, tree, workdir)
    common = {"accept": (0, 1, 2), "env": seedlint_env(workdir)}
    return [
        Job("seedlint cold", [exe, "--no-cache", "."], tree, before=clear, **common),
        Job(
            "seedlint cold --jobs 1",
            [exe, "--jobs", "1", "--no-cache", "."],
            tree,
            before=clear,
            **common,
        ),
        Job("seedlint cache fill", [exe, "."], tree, before=clear, **common),
        Job(
            "seedlint warm", [exe, "."], tree, requires="seedlint cache fill", **common
        ),
        Job("seedlint 1 file", [exe, tree.sample_file], one, **common),
        Job(
            "seedlint 1 file --no-cache",
            [exe, "--no-cache", tree.sample_file],
            one,
            **common,
        ),
    ]


def peer_jobs(workdir: Path, tree: Tree) -> list[Job]:
    ruff = str(venv_bin(workdir, "peers", "ruff"))
    flake8 = str(venv_bin(workdir, "peers", "flake8"))
    sdl_flake8 = str(venv_bin(workdir, "seedlint", "flake8"))
    return [
        Job(
            "ruff NPY002",
            [ruff, "check", "--select", "NPY002", "--no-cache", "."],
            tree,
        ),
        Job("flake8 E9", [flake8, "--select=E9", "."], tree),
        Job("flake8 E9 (SDL plugin installed)", [sdl_flake8, "--select=E9", "."], tree),
        # Cold: the plugin's facts cache is removed first, as on a fresh CI machine.
        Job(
            "flake8 E9,SDL",
            [sdl_flake8, "--select=E9,SDL", "."],
            tree,
            before=functools.partial(clear_seedlint_caches, tree, workdir),
            env=seedlint_env(workdir),
        ),
    ]


def torchfix_job(workdir: Path, tree: Tree, timeout: float) -> Job:
    exe = str(venv_bin(workdir, "torchfix", "torchfix"))
    return Job("torchfix", [exe, "."], tree, timeout=timeout)


def tool_versions(workdir: Path) -> dict[str, str]:
    probes = {
        "ruff": [venv_bin(workdir, "peers", "ruff"), "--version"],
        "flake8 (seedlint venv)": [
            venv_bin(workdir, "seedlint", "flake8"),
            "--version",
        ],
        "torchfix": [venv_bin(workdir, "torchfix", "torchfix"), "--version"],
        "seedlint": [
            venv_bin(workdir, "seedlint", "python"),
            "-c",
            "import importlib.metadata as m; print(m.version('seedlint'))",
        ],
    }
    versions = {}
    for name, argv in probes.items():
        try:
            out = subprocess.run(
                argv, check=False, capture_output=True, text=True, timeout=60
            )
            versions[name] = (out.stdout.strip() or out.stderr.strip()).splitlines()[0]
        except (OSError, IndexError, subprocess.TimeoutExpired):
            versions[name] = "unavailable"
    return versions


def ruff_file_count(workdir: Path, tree: Tree) -> int:
    argv = [
        str(venv_bin(workdir, "peers", "ruff")),
        "check",
        "--show-files",
        "--select",
        "NPY002",
        "--no-cache",
        ".",
    ]
    run = run_once(argv, tree.path)
    return sum(1 for line in run.stdout.splitlines() if line.strip().endswith(".py"))


# --------------------------------------------------------------------------
# Reporting


def fmt_seconds(result: Result | None, value: float) -> str:
    prefix = ">= " if result is not None and result.timed_out else ""
    return prefix + (f"{value:.3f}" if value < 10 else f"{value:.1f}")


def ratio(result: Result, ref: Result | None) -> str:
    """result / ref as a string; bounds when either side timed out."""
    if ref is None or not (result.ok and ref.ok) or result.tree != ref.tree:
        return "–"
    if result is ref:
        return "1"
    value = result.median / ref.median
    if result.timed_out and ref.timed_out:
        return "?"
    mark = ">= " if result.timed_out else "<= " if ref.timed_out else ""
    return f"{mark}{value:.3g}"


def timing_table(results: list[Result]) -> list[str]:
    by = {r.label: r for r in results}
    refs = [by.get("ruff NPY002"), by.get("flake8 E9"), by.get("torchfix")]
    lines = [
        "| tool | tree | median s | min s | runs | ÷ ruff | ÷ flake8 E9 | ÷ torchfix |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        if not r.ok:
            lines.append(f"| {r.label} | {r.tree} | FAILED: {r.error} | | 0 | | | |")
            continue
        cells = [
            r.label,
            r.tree,
            fmt_seconds(r, r.median),
            fmt_seconds(r, r.minimum),
            str(len(r.times)),
        ] + [ratio(r, ref) for ref in refs]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def memory_table(memories: list[Memory]) -> list[str]:
    lines = [
        (
            "| tree | modules | lines | wall s | peak RSS, largest process MB "
            "| peak RSS, all processes MB (sampled) "
            "| peak PSS, all processes MB (sampled) |"
        ),
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for m in memories:
        if m.error:
            lines.append(
                f"| {m.tree.name} | {m.tree.modules} | {m.tree.lines} | "
                f"FAILED: {m.error} | | | |"
            )
            continue
        lines.append(
            f"| {m.tree.name} | {m.tree.modules} | {m.tree.lines} | "
            f"{m.seconds:.2f} | {m.max_rss_mb:.0f} | {m.tree_rss_mb:.0f} "
            f"| {m.tree_pss_mb:.0f} |"
        )
    return lines


def speedup_target(name, result, ref, threshold, invert=False):
    """Row for 'result is threshold x faster/slower than ref'."""
    if result is None or ref is None or not (result.ok and ref.ok):
        return [name, "n/a", "NO DATA"]
    if result.tree != ref.tree:
        return [name, "different trees", "NO DATA"]
    value = ref.median / result.median if invert else result.median / ref.median
    lower_bound = invert and ref.timed_out
    passed = value >= threshold if invert else value <= threshold
    shown = f"{'>= ' if lower_bound else ''}{value:.3g}x"
    status = (
        "PASS"
        if passed
        else ("UNKNOWN (torchfix timed out)" if lower_bound else "FAIL")
    )
    return [name, shown, status]


def targets_table(by: dict, memories: list[Memory], equality: dict) -> list[str]:
    cold, warm = by.get("seedlint cold"), by.get("seedlint warm")
    rows = [
        speedup_target(
            "seedlint cold >= 100x faster than torchfix",
            cold,
            by.get("torchfix"),
            100,
            invert=True,
        ),
        speedup_target(
            "seedlint cold <= 0.15x flake8 --select=E9", cold, by.get("flake8 E9"), 0.15
        ),
        speedup_target(
            "stretch: seedlint cold <= 10x ruff", cold, by.get("ruff NPY002"), 10
        ),
        speedup_target("seedlint warm <= 2x ruff", warm, by.get("ruff NPY002"), 2),
        speedup_target(
            "flake8 E9,SDL <= 1.10x flake8 E9 (no seedlint)",
            by.get("flake8 E9,SDL"),
            by.get("flake8 E9"),
            1.10,
        ),
        single_file_target(by),
        memory_target(memories),
        equality_target(equality),
    ]
    lines = ["| target | measured | status |", "| --- | --- | --- |"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def single_file_target(by: dict) -> list[str]:
    runs = [by.get("seedlint 1 file"), by.get("seedlint 1 file --no-cache")]
    if not all(r is not None and r.ok for r in runs):
        return ["single file < 0.5 s", "n/a", "NO DATA"]
    worst = max(r.median for r in runs)
    return [
        "single file < 0.5 s (worse of cached / --no-cache)",
        f"{worst:.3f} s",
        "PASS" if worst < 0.5 else "FAIL",
    ]


def memory_target(memories: list[Memory]) -> list[str]:
    if not memories or any(m.error for m in memories):
        return ["peak RSS < 300 MB", "n/a", "NO DATA"]
    shown = ", ".join(
        f"{m.tree.name} {m.max_rss_mb:.0f}/{m.tree_pss_mb:.0f}" for m in memories
    )
    worst = max(max(m.max_rss_mb, m.tree_pss_mb) for m in memories)
    return [
        "peak memory < 300 MB (largest process RSS / all processes PSS, MB)",
        shown,
        "PASS" if worst < 300 else "FAIL",
    ]


def equality_target(equality: dict) -> list[str]:
    if not equality or equality.get("error") or "identical" not in equality:
        return [
            "identical findings across jobs/cache",
            equality.get("error", "n/a"),
            "NO DATA",
        ]
    return [
        "identical findings across jobs/cache",
        f"{equality['count']} findings, {len(equality['variants'])} variants",
        "PASS" if equality["identical"] else "FAIL",
    ]


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def machine_info(workdir: Path, load_before: str) -> list[str]:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    python = run_once([str(venv_bin(workdir, "peers", "python")), "--version"], workdir)
    python = python.stdout.strip() or python.stderr.strip()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return [
        f"- date: {now}",
        f"- nproc: {len(os.sched_getaffinity(0))} ({cpu})",
        f"- python: {python} on {platform.platform()}",
        f"- load average (1/5/15 min): {load_before} before, {load_average()} after",
    ]


def report(ctx: dict) -> str:
    by = {r.label: r for r in ctx["results"]}
    out = ["# seedlint benchmark" + (" (--quick)" if ctx["quick"] else ""), ""]
    out += machine_info(ctx["workdir"], ctx["load_before"])
    out += [f"- {name}: {version}" for name, version in ctx["versions"].items()]
    out += [
        (
            f"- runs per tool: {ctx['runs']} (torchfix: {ctx['torchfix_runs']}, "
            f"timeout {ctx['torchfix_timeout']:.0f} s); times are wall-clock seconds"
        ),
        "",
    ]
    out += [
        "## Trees",
        "",
        "| tree | modules | lines | content |",
        "| --- | ---: | ---: | --- |",
    ]
    out += [
        f"| {t.name} | {t.modules} | {t.lines} | {t.composition} |"
        for t in ctx["trees"]
    ]
    out += [
        "",
        (
            f"Timed runs use the `full` tree; the single-file runs lint "
            f"`{ctx['trees'][-1].sample_file}`. ruff sees {ctx['ruff_files']} files."
        ),
        "",
    ]
    out += ["## Timings", ""] + timing_table(ctx["results"])
    out += [
        "",
        (
            "Ratios are this tool's median divided by the reference's median "
            "(below 1 = faster). `flake8 E9` runs in a venv without seedlint "
            "(flake8 alone, the reference); `flake8 E9 (SDL plugin installed)` runs "
            "in the seedlint venv, where flake8 still runs the unselected SDL "
            "plugin and filters its results by `--select` afterwards. "
            "`flake8 E9,SDL` starts each run without the plugin's facts cache (cold)."
        ),
        "",
    ]
    out += ["## seedlint peak memory (`--no-cache`, default jobs)", ""]
    out += memory_table(ctx["memories"]) + [""]
    out += (
        ["## Targets", ""] + targets_table(by, ctx["memories"], ctx["equality"]) + [""]
    )
    out += notes(ctx)
    return "\n".join(out) + "\n"


def notes(ctx: dict) -> list[str]:
    lines = []
    if ctx["install_error"]:
        lines.append(
            f"- seedlint install failed: {ctx['install_error'].splitlines()[-1]}"
        )
    if not ctx["sdl_plugin"]:
        lines.append(
            "- `flake8 --version` in the seedlint venv does not list a seedlint "
            "plugin: `flake8 E9,SDL` ran without it."
        )
    for r in ctx["results"]:
        if r.label.startswith("seedlint") and 2 in r.codes:
            lines.append(
                f"- {r.label}: exit 2 with {r.stderr_lines} stderr lines "
                "(unparsable files in the tree; timing kept)."
            )
    eq = ctx["equality"]
    if eq.get("variants") and not eq.get("identical"):
        first = next(iter(eq["variants"].values()))
        diffs = [f"{k}: {len(v)}" for k, v in eq["variants"].items() if v != first]
        lines.append(
            "- findings differ from `--jobs 1 --no-cache`: " + ", ".join(diffs)
        )
    return (["## Notes", ""] + lines + [""]) if lines else []


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="1 run, smaller tree (timm + lightning + 25 scripts)",
    )
    parser.add_argument("--runs", type=int, help="runs per tool (default 3, --quick 1)")
    parser.add_argument(
        "--workdir", type=Path, help="work directory, reused when already populated"
    )
    parser.add_argument(
        "--torchfix-timeout",
        type=float,
        default=1200.0,
        help="seconds per torchfix run (default 1200)",
    )
    parser.add_argument(
        "--torchfix-runs",
        type=int,
        default=1,
        help="torchfix runs (default 1: it takes minutes per run)",
    )
    parser.add_argument("--skip-torchfix", action="store_true")
    parser.add_argument(
        "--seedlint-src",
        type=Path,
        default=REPO_ROOT,
        help="project to install seedlint from (default: this repository)",
    )
    parser.add_argument("--output", type=Path, help="markdown report path")
    args = parser.parse_args(argv)
    args.runs = args.runs or (1 if args.quick else 3)
    args.torchfix_runs = min(args.torchfix_runs, args.runs)
    default_output = "package-tree-quick.md" if args.quick else "package-tree.md"
    args.output = args.output or RESULTS_DIR / default_output
    return args


def prepare(args, workdir: Path) -> dict:
    for name, requirements in VENVS.items():
        ensure_venv(workdir, name, requirements)
    install_error = install_seedlint(workdir, args.seedlint_src.resolve())
    if install_error:
        log(f"seedlint install failed; its rows will say so\n{install_error}")
    label, sources, generated = (
        ("quick", QUICK_SOURCES, QUICK_GENERATED)
        if args.quick
        else ("full", FULL_SOURCES, FULL_GENERATED)
    )
    trees = build_trees(workdir, label, sources, generated)
    for tree in trees:
        log(
            f"tree {tree.name}: {tree.modules} modules, {tree.lines} lines ({tree.path})"
        )
    flake8_version = run_once(
        [str(venv_bin(workdir, "seedlint", "flake8")), "--version"], workdir
    ).stdout
    return {
        "install_error": install_error,
        "trees": trees,
        "sdl_plugin": "seedlint" in flake8_version.lower(),
    }


def measure(args, workdir: Path, ctx: dict) -> None:
    full = ctx["trees"][-1]
    log(f"timing ruff, flake8 and seedlint: {args.runs} interleaved round(s)")
    ctx["results"] = run_rounds(
        peer_jobs(workdir, full) + seedlint_jobs(workdir, full), args.runs
    )
    clear_seedlint_caches(full, workdir)
    ctx["memories"], ctx["equality"] = [], {}
    exe = venv_bin(workdir, "seedlint", "seedlint")
    if exe.exists():
        log("measuring seedlint memory")
        for tree in ctx["trees"]:
            clear_seedlint_caches(tree, workdir)
            ctx["memories"].append(
                measure_memory(
                    [str(exe), "--no-cache", "."], tree, seedlint_env(workdir)
                )
            )
            clear_seedlint_caches(tree, workdir)
        log("comparing seedlint findings across --jobs and cache")
        ctx["equality"] = check_equality(exe, full, workdir, seedlint_env(workdir))
        clear_seedlint_caches(full, workdir)
    if not args.skip_torchfix:
        log(f"timing torchfix (timeout {args.torchfix_timeout:.0f} s per run)")
        job = torchfix_job(workdir, full, args.torchfix_timeout)
        ctx["results"] = run_rounds([job], args.torchfix_runs) + ctx["results"]
    ctx["ruff_files"] = ruff_file_count(workdir, full)
    ctx["versions"] = tool_versions(workdir)


def main(argv=None) -> int:
    args = parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="seedlint-bench-"))
    workdir = workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    log(f"work directory: {workdir}")
    load_before = load_average()
    ctx = prepare(args, workdir)
    measure(args, workdir, ctx)
    ctx.update(
        quick=args.quick,
        workdir=workdir,
        runs=args.runs,
        torchfix_runs=args.torchfix_runs,
        torchfix_timeout=args.torchfix_timeout,
        load_before=load_before,
    )
    text = report(ctx)
    print(text)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text)
    log(f"report written to {args.output}")
    if not args.workdir:
        log(f"re-run cheaply with --workdir {workdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
