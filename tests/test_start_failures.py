"""Programs that fail before they run anything: the two failures ``analysis.start_failures``
reads happen when the fixture's scripts run (``ImportError`` for a name the imported project
module does not define, argparse's ``ArgumentError`` for an option string registered twice),
and a module only such programs load has its loaders left unjudged."""

import os
import shutil
import subprocess
import sys

import pytest

from fixture_cases import ROOT
from seedlint.config import Settings
from seedlint.engine import Engine

FAILING = ROOT / "SDL001" / "clean_loader_loaded_only_by_programs_that_fail_at_start"
STARTING = ROOT / "SDL001" / "loader_loaded_by_one_program_that_starts"


def run_script(project, script, *arguments):
    return subprocess.run([sys.executable, script, *arguments], cwd=project, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(project)})


@pytest.mark.parametrize("script, error", [
    ("train.py", "ImportError: cannot import name 'load_defaults' from 'tools.checkpoints'"),
    ("evaluate.py", "argparse.ArgumentError: argument --workers: conflicting option string: --workers"),
])
def test_each_program_fails_before_it_builds_a_loader(tmp_path, script, error):
    pytest.importorskip("torch")
    project = tmp_path / "project"
    shutil.copytree(FAILING, project, ignore=shutil.ignore_patterns("expected", "*.fixed.py"))
    finished = run_script(project, script)
    assert finished.returncode != 0 and error in finished.stderr


def test_the_program_whose_import_succeeds_starts(tmp_path):
    pytest.importorskip("torch")
    project = tmp_path / "project"
    shutil.copytree(STARTING, project, ignore=shutil.ignore_patterns("expected", "*.fixed.py"))
    finished = run_script(project, "train.py", "--epochs", "1", "--workers", "0")
    assert finished.returncode == 0, finished.stderr


def analysed(path):
    engine = Engine(Settings(project_root=str(path)))
    return engine.check([str(path)])


def test_the_reasons_name_the_failing_lines(tmp_path):
    from seedlint.analysis.project import Project

    captured = []
    original = Project.__init__

    def keep(self, *args, **kwargs):
        original(self, *args, **kwargs)
        captured.append(self)

    project_dir = tmp_path / "project"
    shutil.copytree(FAILING, project_dir, ignore=shutil.ignore_patterns("expected", "*.fixed.py"))
    Project.__init__ = keep
    try:
        result = analysed(project_dir)
    finally:
        Project.__init__ = original
    assert not result.diagnostics
    project = captured[-1]
    volumes = project.index.load_file(str(project_dir / "data" / "volumes.py"))
    reason = project.start_failures.unreached(volumes)
    assert reason == (
        "evaluate.py:12 registers an option string its parser already has (argparse raises ArgumentError); "
        "train.py:7 imports `load_defaults` from tools/checkpoints.py, which does not define it"
    )

