"""The flake8 plugin's own options (``seedlint-*`` in setup.cfg / .flake8 / the command line),
run through the real ``flake8`` command."""

from __future__ import annotations

import pytest

from ecosystem_support import WRAPPER_TRAIN, run, write_project

FLAKE8_DIAGNOSTIC = "train.py:8:12: SDL001 "
"""flake8 prints 1-based columns from the plugin's 0-based ones: the same place as seedlint."""


def flake8(project, *args):
    return run("flake8", "--select=SDL", *args, "train.py", cwd=project)


def with_flake8_config(project, file_name: str, body: str):
    existing = (project / file_name).read_text() if (project / file_name).exists() else ""
    (project / file_name).write_text(existing + f"\n[flake8]\n{body}\n")
    return project


@pytest.mark.parametrize("file_name", ["setup.cfg", ".flake8", "tox.ini"])
def test_torch_version_from_flake8_config(tmp_path, file_name):
    project = write_project(tmp_path / "proj")
    assert FLAKE8_DIAGNOSTIC in flake8(project).stdout
    with_flake8_config(project, file_name, "seedlint-torch-version = 1.9")
    completed = flake8(project)
    assert completed.returncode == 0, completed.stdout + completed.stderr


def test_flake8_option_overrides_the_projects_declared_torch(tmp_path):
    project = write_project(tmp_path / "proj")
    (project / "requirements.txt").write_text("torch>=2.0\n")
    assert flake8(project).returncode == 0
    with_flake8_config(project, ".flake8", "seedlint-torch-version = >=1.8,<2")
    completed = flake8(project)
    assert completed.returncode == 1 and FLAKE8_DIAGNOSTIC in completed.stdout


def test_options_on_the_command_line(tmp_path):
    project = write_project(tmp_path / "proj")
    assert flake8(project, "--seedlint-torch-version=2.1").returncode == 0
    assert flake8(project, "--seedlint-lightning-version=2.2").returncode == 1


def test_extra_loader_classes_from_flake8_config(tmp_path):
    project = write_project(tmp_path / "proj", train=WRAPPER_TRAIN)
    assert flake8(project).returncode == 0
    with_flake8_config(project, "setup.cfg", "seedlint-extra-loader-classes =\n    mylib.loading.FastLoader,\n    mylib.loading.Other")
    completed = flake8(project)
    assert completed.returncode == 1 and FLAKE8_DIAGNOSTIC in completed.stdout


def test_plugin_reads_tool_seedlint_from_pyproject(tmp_path):
    project = write_project(tmp_path / "proj", pyproject='[tool.seedlint]\ntorch-version = "1.9"\n')
    assert flake8(project).returncode == 0
    (project / "pyproject.toml").write_text('[tool.seedlint]\ntorch-version = "1.9"\nextra-loader-classes = ["a b"]\n')
    completed = flake8(project)
    assert completed.returncode == 1
    assert "train.py:1:1: SDL000 seedlint configuration error: " in completed.stdout
    assert "extra-loader-classes: 'a b' is not a qualified class name" in completed.stdout


@pytest.mark.parametrize(
    "body, message",
    [
        ("seedlint-torch-version = latest", "seedlint: seedlint-torch-version: expected a version such as \"1.8\""),
        ("seedlint-lightning-version = 2.x", "seedlint: seedlint-lightning-version: expected a version such as"),
        ("seedlint-extra-loader-classes = my-lib.Loader", "seedlint: seedlint-extra-loader-classes: 'my-lib.Loader' is not a qualified class name"),
        ("seedlint-extra-dataset-classes = 1abc", "seedlint: seedlint-extra-dataset-classes: '1abc' is not a qualified class name"),
        ("seedlint-extra-sampler-classes = a..b", "seedlint: seedlint-extra-sampler-classes: 'a..b' is not a qualified class name"),
    ],
)
def test_bad_flake8_option_values_are_a_clear_error(tmp_path, body, message):
    project = with_flake8_config(write_project(tmp_path / "proj"), "setup.cfg", body)
    completed = flake8(project)
    assert completed.returncode == 2, completed.stdout + completed.stderr
    assert "Traceback" not in completed.stdout + completed.stderr
    assert message in completed.stderr, completed.stdout + completed.stderr


def test_options_are_listed_in_flake8_help(tmp_path):
    listed = run("flake8", "--help", cwd=tmp_path).stdout
    for flag in ("--seedlint-torch-version", "--seedlint-lightning-version", "--seedlint-extra-dataset-classes",
                 "--seedlint-extra-loader-classes", "--seedlint-extra-sampler-classes"):
        assert flag in listed
