"""What keeps the engine cheap inside someone else's process (flake8) and on big trees.

- The cyclic garbage collector is paused while the engine analyses and restored after,
  also when a rule crashes.
- The flake8 plugin's facts store keeps facts pickled, so a long flake8 run does not carry
  hundreds of thousands of small objects that every full collection walks.
- In flake8's main process, when SDL is selected, the plugin imports libcst and freezes
  the start-up objects, so flake8's full collections stop walking them.
- The plugin hands flake8's own syntax tree to the syntactic prefilter instead of parsing
  the file a second time.
- The engine keeps the text only of files a rule can start from; ``--fix`` reads any other
  file it has to edit when it gets there.
"""

from __future__ import annotations

import ast
import gc
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import seedlint.prefilter as prefilter
from seedlint.config import Settings
from seedlint.engine import Engine, FactsStore
from seedlint.facts.model import ModuleFacts
from seedlint.flake8_plugin import SeedlintChecker
from seedlint.rules import RULES

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "SDL001" / "transform_compose"


@pytest.fixture
def project(tmp_path):
    target = tmp_path / "proj"
    shutil.copytree(FIXTURE, target, ignore=shutil.ignore_patterns("*.fixed.py", "expected"))
    (target / "notes.py").write_text("NOTES = 'nothing about loaders here'\n")
    return target


def test_collector_is_paused_during_analysis_and_restored_after(project, monkeypatch):
    seen = []
    rule = next(r for r in RULES if r.code == "SDL001")
    original = type(rule).check

    def check(self, project_):
        seen.append(gc.isenabled())
        yield from original(self, project_)
        raise RuntimeError("boom")

    monkeypatch.setattr(type(rule), "check", check)
    assert gc.isenabled()
    result = Engine(Settings()).check([str(project)])
    assert seen and not any(seen)
    assert gc.isenabled()
    assert any("internal error in SDL001" in e.reason for e in result.errors)

    gc.disable()
    try:
        Engine(Settings()).check([str(project)])
        assert not gc.isenabled()  # a caller that had it off keeps it off
    finally:
        gc.enable()


def test_compact_store_keeps_pickles_and_returns_equal_facts(project):
    store = FactsStore(cache=None, compact=True)
    path = str(project / "train.py")
    text = (project / "train.py").read_text()
    first = store.facts(path, text, "train", False)
    assert isinstance(first, ModuleFacts)
    assert all(isinstance(v, bytes) for v in store._memory.values())
    again = store.facts(path, text, "train", False)
    assert again is not first
    assert sorted(again.functions) == sorted(first.functions)
    assert [c.span for c in again.functions["get_loader"].calls] == [c.span for c in first.functions["get_loader"].calls]


def test_plugin_reuses_flake8s_tree(project, monkeypatch):
    source = (project / "train.py").read_text()
    tree = ast.parse(source)

    parsed = []

    class CountingAst:
        def __getattr__(self, name):
            return getattr(ast, name)

        def parse(self, *args, **kwargs):
            parsed.append(args)
            return ast.parse(*args, **kwargs)

    monkeypatch.setattr(prefilter, "ast", CountingAst())
    monkeypatch.chdir(project)
    found = list(SeedlintChecker(tree, "train.py", source.splitlines(keepends=True)).run())
    assert [(line, message.split()[0]) for line, _, message, _ in found] == [(9, "SDL001")]
    assert parsed == []


def test_engine_keeps_only_candidate_sources_and_fix_still_works(project):
    engine = Engine(Settings())
    result = engine.fix([str(project)])
    kept = {Path(p).name for p in engine._sources}
    assert "notes.py" not in kept and "train.py" in kept
    assert [Path(p).name for p in result.new_text] == ["train.py"]
    outside = engine._original(str(project / "notes.py"), "notes.py")
    assert outside.text == "NOTES = 'nothing about loaders here'\n"


def test_plugin_freezes_start_up_objects_only_when_sdl_is_selected():
    """Checked in fresh interpreters: the freeze is process-wide and permanent."""
    probe = (
        "import gc, sys, types\n"
        "from seedlint.flake8_plugin import SeedlintChecker\n"
        "SeedlintChecker.parse_options(types.SimpleNamespace(select=sys.argv[1].split(','), extend_select=[]))\n"
        "print(gc.get_freeze_count() > 0, 'libcst' in sys.modules)\n"
    )
    outputs = {
        select: subprocess.run([sys.executable, "-c", probe, select], capture_output=True, text=True, check=True).stdout.split()
        for select in ("E9", "E9,SDL", "SDL001")
    }
    assert outputs == {"E9": ["False", "False"], "E9,SDL": ["True", "True"], "SDL001": ["True", "True"]}
