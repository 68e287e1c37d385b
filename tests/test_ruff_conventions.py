"""The command line where ruff users expect ruff's behaviour (issue 27): `ALL`,
`--extend-ignore`, `--per-file-ignores`, unknown codes named with their source,
`--exit-non-zero-on-fix`, `--show-files`, `--explain` by name, "Would fix N" after `--diff`,
`--cache-dir`, `--output-format`, statistics whose fixable marks add up to the summary, and a
folder that cannot be listed. Each runs the installed command on a small buggy project."""

from __future__ import annotations

import json
import os

from ecosystem_support import TRAIN_DIAGNOSTIC, run, write_project

PARTLY_FIXABLE = '''\
"""A loader whose worker_init_fn the caller picks: no fix can be written for it."""
from torch.utils.data import DataLoader

from data import NoisyDataset


def make_loader(init=None):
    return DataLoader(NoisyDataset(), batch_size=8, num_workers=2, worker_init_fn=init)


LOADER = make_loader()
'''


def codes(completed) -> list:
    return [line.split()[1] for line in completed.stdout.splitlines() if ": SDL" in line]


def test_all_selects_and_ignores_every_rule(tmp_path):
    project = write_project(tmp_path / "proj")
    assert codes(run("seedlint", "--no-cache", "--select", "ALL", ".", cwd=project)) == ["SDL001"]
    ignored = run("seedlint", "--no-cache", "--ignore", "all", ".", cwd=project)
    assert ignored.returncode == 0 and codes(ignored) == []
    assert "no rule is selected" in ignored.stderr
    (project / "pyproject.toml").write_text('[tool.seedlint]\nextend-ignore = ["ALL"]\n')
    configured = run("seedlint", "--no-cache", ".", cwd=project)
    assert configured.returncode == 0 and codes(configured) == []


def test_extend_ignore_adds_to_the_ignored_codes(tmp_path):
    project = write_project(tmp_path / "proj")
    completed = run("seedlint", "--no-cache", "--ignore", "SDL1", "--extend-ignore", "SDL001", ".", cwd=project)
    assert completed.returncode == 0 and codes(completed) == []
    assert codes(run("seedlint", "--no-cache", "--extend-ignore", "SDL002", ".", cwd=project)) == ["SDL001"]


def test_per_file_ignores_on_the_command_line(tmp_path):
    project = write_project(tmp_path / "proj")
    (project / "train2.py").write_text(PARTLY_FIXABLE)
    completed = run("seedlint", "--no-cache", "--per-file-ignores", "train.py:SDL001 other/*.py:SDL1", ".", cwd=project)
    assert [line.split(":")[0] for line in completed.stdout.splitlines() if ": SDL" in line] == ["train2.py"]
    wrong = run("seedlint", "--no-cache", "--per-file-ignores", "train.py", ".", cwd=project)
    assert wrong.returncode == 2 and "GLOB:CODES" in wrong.stderr


def test_unknown_codes_name_where_they_come_from(tmp_path):
    project = write_project(tmp_path / "proj", pyproject='[tool.seedlint]\nselect = ["SDL001", "SDL999"]\n')
    configured = run("seedlint", "--no-cache", ".", cwd=project)
    assert configured.returncode == 2
    assert f"{project / 'pyproject.toml'}: [tool.seedlint] select: 'SDL999' names no seedlint rule" in configured.stderr
    (project / "pyproject.toml").unlink()
    given = run("seedlint", "--no-cache", "--extend-ignore", "SDL998", ".", cwd=project)
    assert given.returncode == 2 and "--extend-ignore: 'SDL998' names no seedlint rule" in given.stderr


def test_exit_non_zero_on_fix(tmp_path):
    project = write_project(tmp_path / "proj")
    fixed = run("seedlint", "--no-cache", "--fix", "--exit-non-zero-on-fix", ".", cwd=project)
    assert fixed.returncode == 1 and "Fixed 1 problem." in fixed.stdout
    again = run("seedlint", "--no-cache", "--fix", "--exit-non-zero-on-fix", ".", cwd=project)
    assert again.returncode == 0 and "All checks passed!" in again.stdout
    plain = write_project(tmp_path / "plain")
    assert run("seedlint", "--no-cache", "--fix", ".", cwd=plain).returncode == 0


def test_show_files_lists_what_would_be_checked(tmp_path):
    project = write_project(tmp_path / "proj")
    (project / "build").mkdir()
    (project / "build" / "generated.py").write_text("x = 1\n")
    completed = run("seedlint", "--show-files", ".", cwd=project)
    assert completed.returncode == 0
    assert completed.stdout.splitlines() == ["data.py", "train.py"]
    assert not (project / ".seedlint_cache").exists()


def test_explain_by_name_or_code():
    by_name = run("seedlint", "--explain", "numpy-global-rng-in-workers", cwd=os.getcwd())
    by_code = run("seedlint", "--explain", "sdl001", cwd=os.getcwd())
    assert by_name.returncode == 0 and by_name.stdout == by_code.stdout and "SDL001" in by_name.stdout
    assert run("seedlint", "--explain", "no-such-rule", cwd=os.getcwd()).returncode == 2


def test_diff_says_how_many_it_would_fix(tmp_path):
    project = write_project(tmp_path / "proj")
    completed = run("seedlint", "--no-cache", "--diff", ".", cwd=project)
    assert completed.returncode == 1
    assert completed.stdout.startswith("--- a/train.py\n+++ b/train.py\n")
    assert completed.stderr.strip().splitlines()[-1] == "Would fix 1 problem."


def test_cache_dir(tmp_path):
    project = write_project(tmp_path / "proj")
    cache = tmp_path / "elsewhere"
    first = run("seedlint", "--cache-dir", str(cache), ".", cwd=project)
    assert first.stdout.startswith(TRAIN_DIAGNOSTIC)
    assert cache.is_dir() and any(cache.rglob("*")) and not (project / ".seedlint_cache").exists()
    from_environment = tmp_path / "from-env"
    run("seedlint", ".", cwd=project, env={"SEEDLINT_CACHE_DIR": str(from_environment)})
    assert from_environment.is_dir() and not (project / ".seedlint_cache").exists()


def test_output_format_is_the_format_option(tmp_path):
    project = write_project(tmp_path / "proj")
    new = run("seedlint", "--no-cache", "--output-format", "json", ".", cwd=project)
    old = run("seedlint", "--no-cache", "--format", "json", ".", cwd=project)
    assert json.loads(new.stdout) == json.loads(old.stdout)


def test_statistics_marks_add_up_to_the_summary(tmp_path):
    project = write_project(tmp_path / "proj")
    (project / "train2.py").write_text(PARTLY_FIXABLE)
    text = run("seedlint", "--no-cache", "--statistics", ".", cwd=project)
    assert text.stdout.splitlines() == ["2\tSDL001\t[~] numpy-global-rng-in-workers", "Found 2 problems. 1 fixable with `seedlint --fix`."]
    as_json = json.loads(run("seedlint", "--no-cache", "--statistics", "--format", "json", ".", cwd=project).stdout)
    assert as_json == [{"code": "SDL001", "name": "numpy-global-rng-in-workers", "count": 2, "fixable": False, "fixable_count": 1}]


def test_a_folder_that_cannot_be_listed_is_an_error(tmp_path, monkeypatch, capsys):
    from seedlint import cli, discovery, source

    project = write_project(tmp_path / "proj")
    locked = project / "locked"
    locked.mkdir()
    (locked / "hidden.py").write_text("x = 1\n")
    real_walk, real_listdir = os.walk, os.listdir

    def walk(top, onerror=None, **kwargs):
        for directory, subdirs, files in real_walk(top, **kwargs):
            if "locked" in subdirs:
                subdirs.remove("locked")
                onerror(PermissionError(13, "Permission denied", str(locked)))
            yield directory, subdirs, files

    def listdir(path="."):
        if os.path.abspath(path) == str(locked):
            raise PermissionError(13, "Permission denied", str(locked))
        return real_listdir(path)

    monkeypatch.setattr(discovery.os, "walk", walk)
    monkeypatch.setattr(source.os, "listdir", listdir)
    monkeypatch.chdir(project)
    status = cli.main(["--no-cache", "."])
    out, err = capsys.readouterr()
    assert status == 2
    assert "locked: cannot read this folder (Permission denied): its files are not checked" in err
    assert "All checks passed!" not in out and "could not be checked" in out
