"""The real ``seedlint`` and ``flake8`` commands on a small multi-module project."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "SDL001" / "transform_compose"
BIN = Path(sys.executable).parent


def run(*args, cwd, check_exit=None):
    completed = subprocess.run([str(BIN / args[0]), *args[1:]], cwd=cwd, capture_output=True, text=True, timeout=300)
    if check_exit is not None:
        assert completed.returncode == check_exit, (completed.stdout, completed.stderr)
    return completed


@pytest.fixture
def project(tmp_path):
    target = tmp_path / "proj"
    shutil.copytree(FIXTURE, target, ignore=shutil.ignore_patterns("*.fixed.py", "expected"))
    return target


def test_check_reports_cross_module_finding_with_exit_1(project):
    completed = run("seedlint", "--no-cache", ".", cwd=project, check_exit=1)
    assert completed.stdout.splitlines()[0].startswith("train.py:9:12: SDL001 ")
    assert "RandomCrop.__call__" in completed.stdout
    assert "Found 1 problem. 1 fixable with `seedlint --fix`." in completed.stdout
    assert completed.stderr == ""


def test_json_format_is_valid_and_one_based(project):
    completed = run("seedlint", "--no-cache", "--format", "json", ".", cwd=project, check_exit=1)
    document = json.loads(completed.stdout)
    assert document["version"] == 3 and document["errors"] == [] and document["files_checked"] == 5
    (item,) = document["diagnostics"]
    assert item["path"] == "train.py" and item["line"] == 9 and item["column"] == 12
    assert item["code"] == "SDL001" and item["name"] == "numpy-global-rng-in-workers" and item["fixable"] is True
    assert item["end_line"] == 9


def test_diff_writes_nothing_and_fix_then_rerun_is_clean(project):
    before = (project / "train.py").read_text()
    diff = run("seedlint", "--no-cache", "--diff", ".", cwd=project, check_exit=1)
    assert "+def seed_worker(worker_id):" in diff.stdout and "worker_init_fn=seed_worker" in diff.stdout
    assert (project / "train.py").read_text() == before
    run("seedlint", "--no-cache", "--fix", ".", cwd=project, check_exit=0)
    assert (project / "train.py").read_text() == (FIXTURE / "train.fixed.py").read_text()
    run("seedlint", "--no-cache", ".", cwd=project, check_exit=0)
    run("seedlint", "--no-cache", "--diff", ".", cwd=project, check_exit=0)


def test_select_ignore_and_torch_version(project):
    assert run("seedlint", "--no-cache", "--ignore", "SDL001", ".", cwd=project).returncode == 0
    assert run("seedlint", "--no-cache", "--select", "SDL0", ".", cwd=project).returncode == 1
    assert run("seedlint", "--no-cache", "--torch-version", "1.9", ".", cwd=project).returncode == 0
    assert run("seedlint", "--no-cache", "--torch-version", "1.8", ".", cwd=project).returncode == 1


def test_usage_errors_exit_2(project):
    assert run("seedlint", "--select", "E501", ".", cwd=project).returncode == 2
    missing = run("seedlint", "no/such/dir", cwd=project)
    assert missing.returncode == 2 and "no/such/dir" in missing.stderr
    assert run("seedlint", "--explain", "SDL999", cwd=project).returncode == 2


def test_explain_and_list_rules(project):
    explained = run("seedlint", "--explain", "SDL001", cwd=project, check_exit=0).stdout
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety"):
        assert section in explained
    listed = run("seedlint", "--list-rules", cwd=project, check_exit=0).stdout
    assert "SDL001" in listed and "numpy-global-rng-in-workers" in listed


def test_cache_and_jobs_give_identical_results(project):
    outputs = []
    for args in (["--no-cache", "--jobs", "1"], ["--jobs", "2"], ["--jobs", "2"], ["--jobs", "1"]):
        outputs.append(run("seedlint", *args, "--format", "json", ".", cwd=project, check_exit=1).stdout)
    assert len(set(outputs)) == 1
    assert (project / ".seedlint_cache" / ".gitignore").read_text().strip().endswith("*")


def test_flake8_plugin_reports_sibling_module_finding_with_zero_based_columns(project):
    completed = run("flake8", "--select=SDL", ".", cwd=project, check_exit=1)
    lines = completed.stdout.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("./train.py:9:12: SDL001 ")


def test_flake8_plugin_respects_noqa_and_single_file(project):
    completed = run("flake8", "--select=SDL", "train.py", cwd=project, check_exit=1)
    assert completed.stdout.startswith("train.py:9:12: SDL001")
    source = (project / "train.py").read_text().splitlines()
    source[8] += "  # noqa: SDL001"
    (project / "train.py").write_text("\n".join(source) + "\n")
    run("flake8", "--select=SDL", "train.py", cwd=project, check_exit=0)


def test_warm_cache_notices_a_changed_dependency_module(project):
    """Only train.py is checked; the dataset's transform lives in a module it imports."""
    assert run("seedlint", "train.py", cwd=project).returncode == 1
    assert run("seedlint", "train.py", cwd=project).returncode == 1
    transforms = project / "vision" / "transforms.py"
    transforms.write_text(transforms.read_text().replace("np.random.randint(0, image.shape[0] - self.size + 1)", "0")
                          .replace("np.random.randint(0, image.shape[1] - self.size + 1)", "0"))
    assert run("seedlint", "train.py", cwd=project).returncode == 0
    (project / "train.py").write_text((project / "train.py").read_text() + "\n# touched\n")
    assert run("seedlint", "train.py", cwd=project).returncode == 0


def test_flake8_plugin_does_no_analysis_when_sdl_is_not_selected(project):
    """flake8 calls every installed plugin whatever --select says; the plugin must notice.
    Its facts cache appears only when it analyses a file."""
    run("flake8", "--select=E9", ".", cwd=project, check_exit=0)
    assert not (project / ".seedlint_cache").exists()
    run("flake8", "--select=E9,SDL", ".", cwd=project, check_exit=1)
    assert (project / ".seedlint_cache").exists()


def test_version_and_help_load_neither_engine_nor_rules():
    probe = (
        "import sys\n"
        "from seedlint import cli\n"
        "for argv in (['--version'], ['--help']):\n"
        "    try:\n"
        "        cli.main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "loaded = [m for m in ('seedlint.engine', 'seedlint.rules', 'seedlint.analysis.flow', 'libcst') if m in sys.modules]\n"
        "print('LOADED', loaded)\n"
    )
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert "LOADED []" in completed.stdout, completed.stdout


def test_format_choices_are_the_reporters():
    from seedlint import cli
    from seedlint.report import FORMATS

    assert tuple(sorted({*FORMATS, "text"})) == cli.FORMAT_NAMES  # ``text`` picks ``full`` or ``concise``
