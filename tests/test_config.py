"""``[tool.seedlint]`` in pyproject.toml: discovery from the linted paths, every option, and
a clear one-line error (exit 2) naming the file and key for every bad value."""

from __future__ import annotations

from pathlib import Path

import pytest

from ecosystem_support import TRAIN_DIAGNOSTIC, WRAPPER_TRAIN, run, write_project
from seedlint.cli import main


def check(project: Path, *args: str, monkeypatch, capsys):
    monkeypatch.chdir(project)
    status = main(["--no-cache", *args])
    out, err = capsys.readouterr()
    return status, out, err


def config(body: str) -> str:
    return f"[tool.seedlint]\n{body}\n"


@pytest.mark.parametrize(
    "body, reported",
    [
        ("", True),
        ('select = ["SDL1"]', False),
        ('ignore = ["SDL001"]', False),
        ('ignore = ["SDL0"]\nextend-select = ["SDL001"]', True),
        ('select = ["SDL001"]\nignore = ["SDL001"]', False),  # as in ruff: ignore wins a tie
        ('ignore = ["SDL"]', False),
        ('select = "SDL001, SDL002"', True),
        ('extend-exclude = ["train.py"]', False),
        ('per-file-ignores = {"train.py" = ["SDL001"]}', False),
        ('per-file-ignores = {"tests/*" = ["SDL001"]}', True),
        ('torch-version = "1.9"', False),
        ('torch-version = ">=1.8,<1.10"', True),
        ('torch-version = "2"', False),
        ('lightning-version = "2.2"', True),
    ],
)
def test_options_change_what_is_reported(tmp_path, monkeypatch, capsys, body, reported):
    project = write_project(tmp_path / "proj", pyproject=config(body))
    status, out, err = check(project, ".", monkeypatch=monkeypatch, capsys=capsys)
    tie = 'select = ["SDL001"]\nignore = ["SDL001"]' in body
    nothing = body == 'ignore = ["SDL"]'
    assert err == (
        "seedlint: warning: `SDL001` is selected but also ignored, and ignore wins: it is not checked\n" if tie
        else "seedlint: warning: no rule is selected (the ignores switch every rule off)\n" if nothing
        else ""
    )
    assert status == (1 if reported else 0)
    assert (TRAIN_DIAGNOSTIC in out) is reported


def test_extra_loader_classes_make_an_in_house_wrapper_a_loader(tmp_path, monkeypatch, capsys):
    project = write_project(tmp_path / "proj", train=WRAPPER_TRAIN)
    assert check(project, ".", monkeypatch=monkeypatch, capsys=capsys)[0] == 0
    (project / "pyproject.toml").write_text(config('extra-loader-classes = ["mylib.loading.FastLoader"]'))
    status, out, _ = check(project, ".", monkeypatch=monkeypatch, capsys=capsys)
    assert status == 1 and TRAIN_DIAGNOSTIC in out


def test_config_table_overrides_declared_versions_and_the_command_line_overrides_both(tmp_path, monkeypatch, capsys):
    project = write_project(tmp_path / "proj", pyproject='[project]\nname = "p"\ndependencies = ["torch>=2.0"]\n')
    assert check(project, ".", monkeypatch=monkeypatch, capsys=capsys)[0] == 0
    (project / "pyproject.toml").write_text(
        '[project]\nname = "p"\ndependencies = ["torch>=2.0"]\n\n' + config('torch-version = "1.8"')
    )
    assert check(project, ".", monkeypatch=monkeypatch, capsys=capsys)[0] == 1
    assert check(project, "--torch-version", "2.1", ".", monkeypatch=monkeypatch, capsys=capsys)[0] == 0


def test_configuration_is_found_by_walking_up_from_the_linted_path(tmp_path, monkeypatch, capsys):
    root = tmp_path / "repo"
    write_project(root / "src" / "app", pyproject=None)
    (root / "src" / "app" / "setup.cfg").unlink()
    (root / "pyproject.toml").write_text(config('ignore = ["SDL001"]'))
    (root / "src" / "pyproject.toml").write_text('[tool.black]\nline-length = 100\n')
    assert check(tmp_path, "repo/src/app/train.py", monkeypatch=monkeypatch, capsys=capsys)[0] == 0
    assert check(root / "src" / "app", ".", monkeypatch=monkeypatch, capsys=capsys)[0] == 0
    (root / "pyproject.toml").write_text(config(""))
    status, out, _ = check(tmp_path, "repo/src/app/train.py", monkeypatch=monkeypatch, capsys=capsys)
    assert status == 1 and "repo/src/app/train.py:8:12: SDL001" in out


def test_explicit_config_file(tmp_path, monkeypatch, capsys):
    project = write_project(tmp_path / "proj")
    (tmp_path / "strict.toml").write_text(config('select = ["SDL1"]'))
    assert check(project, "--config", str(tmp_path / "strict.toml"), ".", monkeypatch=monkeypatch, capsys=capsys)[0] == 0


BAD_CONFIGS = [
    ('selct = ["SDL001"]', "[tool.seedlint]: unknown key 'selct'"),
    ("select = [1]", "[tool.seedlint] select: expected a list of rule codes"),
    ('ignore = ["E501"]', "[tool.seedlint] ignore: 'E501' is not a seedlint rule code or prefix"),
    ('extend-select = {SDL = 1}', "[tool.seedlint] extend-select: expected a list of rule codes"),
    ('per-file-ignores = ["tests/*"]', "[tool.seedlint] per-file-ignores: expected a table"),
    ('per-file-ignores = {"tests/*" = ["F401"]}', "[tool.seedlint] per-file-ignores.tests/*: 'F401' is not a seedlint rule code"),
    ('extend-exclude = "build"', "[tool.seedlint] extend-exclude: expected a list of strings"),
    ('exclude = [".git", 3]', "[tool.seedlint] exclude: expected a list of strings"),
    ('torch-version = "latest"', "[tool.seedlint] torch-version: expected a version such as"),
    ("torch-version = 1.10", "[tool.seedlint] torch-version: write the version as a string (\"1.1\")"),
    ('lightning-version = ">=2.x"', "[tool.seedlint] lightning-version: expected a version such as"),
    ("lightning-version = true", "[tool.seedlint] lightning-version: expected a version such as"),
    ('extra-loader-classes = ["mylib.Fast-Loader"]', "[tool.seedlint] extra-loader-classes: 'mylib.Fast-Loader' is not a qualified class name"),
    ("extra-dataset-classes = [1]", "[tool.seedlint] extra-dataset-classes: expected a list of qualified class names"),
    ('extra-sampler-classes = ["a..b"]', "[tool.seedlint] extra-sampler-classes: 'a..b' is not a qualified class name"),
    ('unsafe-fixes = "yes"', "[tool.seedlint] unsafe-fixes: expected true or false"),
]


@pytest.mark.parametrize("body, message", BAD_CONFIGS, ids=[b.split(" =")[0] for b, _ in BAD_CONFIGS])
def test_bad_values_exit_2_with_one_line_naming_file_and_key(tmp_path, monkeypatch, capsys, body, message):
    project = write_project(tmp_path / "proj", pyproject=config(body))
    status, out, err = check(project, ".", monkeypatch=monkeypatch, capsys=capsys)
    assert status == 2
    assert out == ""
    assert err.startswith(f"seedlint: error: {project / 'pyproject.toml'}: {message}"), err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    "text, message",
    [
        ("[tool.seedlint\nselect = 1\n", "invalid TOML: "),
        ("[tool]\nseedlint = 3\n", "[tool.seedlint] must be a table"),
    ],
)
def test_unusable_pyproject_exits_2(tmp_path, monkeypatch, capsys, text, message):
    project = write_project(tmp_path / "proj", pyproject=text)
    status, out, err = check(project, ".", monkeypatch=monkeypatch, capsys=capsys)
    assert status == 2 and out == ""
    assert err.startswith(f"seedlint: error: {project / 'pyproject.toml'}: {message}"), err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    "args, message",
    [
        (["--config", "missing.toml"], "seedlint: error: missing.toml: cannot read: No such file or directory"),
        (["--torch-version", "banana"], "seedlint: error: --torch-version: expected a version such as"),
        (["--lightning-version", "two"], "seedlint: error: --lightning-version: expected a version such as"),
        (["--statistics", "--format", "sarif"], "seedlint: error: --statistics works with --format text or json"),
    ],
)
def test_bad_command_line_settings_exit_2(tmp_path, monkeypatch, capsys, args, message):
    project = write_project(tmp_path / "proj")
    status, out, err = check(project, *args, ".", monkeypatch=monkeypatch, capsys=capsys)
    assert status == 2 and out == ""
    assert err.startswith(message), err
    assert err.count("\n") == 1


def test_real_command_reports_a_config_error_without_a_traceback(tmp_path):
    project = write_project(tmp_path / "proj", pyproject=config('torch_version = "1.8"'))
    completed = run("seedlint", ".", cwd=project)
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert completed.stderr.startswith("seedlint: error: ") and "unknown key 'torch_version'" in completed.stderr
    assert "Traceback" not in completed.stderr


def test_bad_rule_code_on_the_command_line_is_a_usage_error(tmp_path):
    completed = run("seedlint", "--ignore", "E501", ".", cwd=write_project(tmp_path / "proj"))
    assert completed.returncode == 2
    assert "argument --ignore: 'E501' is not a seedlint rule code or prefix (SDL..., or ALL)" in completed.stderr


def test_a_selection_an_ignore_switches_off_is_warned_about(tmp_path, monkeypatch, capsys):
    """As in ruff: ignore wins a tie, and a code selected explicitly that an ignore switches
    off entirely is said on stderr rather than silently dropped."""
    project = write_project(tmp_path / "proj", pyproject=config(""))
    status, out, err = check(project, ".", "--select", "SDL001,SDL003", "--ignore", "SDL001", monkeypatch=monkeypatch, capsys=capsys)
    assert status == 0 and TRAIN_DIAGNOSTIC not in out
    assert "`SDL001` is selected but also ignored" in err and "SDL003" not in err
    status, out, err = check(project, ".", "--select", "SDL001", "--ignore", "SDL0", monkeypatch=monkeypatch, capsys=capsys)
    assert status == 1 and TRAIN_DIAGNOSTIC in out and err == ""  # the more specific select wins
