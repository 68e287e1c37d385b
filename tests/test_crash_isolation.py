"""An internal error in one rule on one module, or in the facts pass on one file, is
reported against that file; every other file is still checked, and --fix does not write
the file that crashed. (Needs the engine patch from issue 7's report.)"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import seedlint.engine as engine_module
from seedlint.config import Settings, version_option
from seedlint.engine import Engine
from seedlint.rules import BY_CODE

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "SDL001" / "basic_getitem.py"
SETTINGS = replace(Settings(), torch_version=version_option("--torch-version", "1.8"), select=("SDL001",))


@pytest.fixture
def tree(tmp_path):
    for name in ("a_good.py", "b_crash.py", "c_good.py"):
        (tmp_path / name).write_text(FIXTURE.read_text())
    return tmp_path


def test_rule_crash_on_one_module_is_isolated(tree, monkeypatch):
    rule = BY_CODE["SDL001"]
    original = type(rule).check

    def check(self, project):
        for diagnostic in original(self, project):
            if diagnostic.path.endswith("b_crash.py"):
                raise RuntimeError("boom")
            yield diagnostic

    monkeypatch.setattr(type(rule), "check", check)
    result = Engine(SETTINGS).check([str(tree)])
    assert sorted(Path(d.path).name for d in result.diagnostics) == ["a_good.py", "c_good.py"]
    (error,) = result.errors
    assert error.path.endswith("b_crash.py") and "internal error in SDL001" in error.reason and "boom" in error.reason

    fixed = Engine(SETTINGS).fix([str(tree)])
    assert sorted(Path(p).name for p in fixed.new_text) == ["a_good.py", "c_good.py"]


def test_facts_crash_on_one_file_is_isolated(tree, monkeypatch):
    import seedlint.facts.collector as collector

    original = collector.collect_facts

    def collect(module, name, path, is_package=False, text=None):
        if path.endswith("b_crash.py"):
            raise RecursionError("maximum recursion depth exceeded")
        return original(module, name, path, is_package, text)

    monkeypatch.setattr(collector, "collect_facts", collect)
    result = Engine(SETTINGS).fix([str(tree)])
    assert sorted(Path(p).name for p in result.new_text) == ["a_good.py", "c_good.py"]
    assert [Path(e.path).name for e in result.errors] == ["b_crash.py"]
    assert "internal error while analysing" in result.errors[0].reason
