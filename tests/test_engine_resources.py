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
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import seedlint.prefilter as prefilter
from seedlint.config import Settings
from seedlint.engine import Engine, FactsStore, _parse_facts, collection_paused
from seedlint.facts.model import ModuleFacts
from seedlint.flake8_plugin import SeedlintChecker
from seedlint.rules import RULES

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
FIXTURE = FIXTURES / "SDL001" / "transform_compose"


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
        "frozen = gc.get_freeze_count()\n"  # not 0 on every Python (3.12 starts with some)
        "SeedlintChecker.parse_options(types.SimpleNamespace(select=sys.argv[1].split(','), extend_select=[]))\n"
        "print(gc.get_freeze_count() > frozen, 'libcst' in sys.modules)\n"
    )
    outputs = {
        select: subprocess.run([sys.executable, "-c", probe, select], capture_output=True, text=True, check=True).stdout.split()
        for select in ("E9", "E9,SDL", "SDL001")
    }
    assert outputs == {"E9": ["False", "False"], "E9,SDL": ["True", "True"], "SDL001": ["True", "True"]}


def test_compact_store_keeps_facts_too_deep_to_pickle(monkeypatch):
    """Facts of a very deep expression can be collected but not pickled (how deep depends
    on the Python version: 3.13 pickles deeper than 3.11); the store keeps them unpickled
    instead of failing the flake8 run."""
    import seedlint.engine

    text = "import torch\nLABEL = 'a'" + " + 'a'" * 400 + "\n"
    try:
        pickle.dumps(FactsStore(cache=None, compact=True).facts("deep.py", text, "deep", False), protocol=pickle.HIGHEST_PROTOCOL)
    except RecursionError:
        pass
    else:  # this Python pickles it: make pickling fail the way a deeper expression would

        def too_deep(*args, **kwargs):
            raise RecursionError("maximum recursion depth exceeded while pickling an object")

        monkeypatch.setattr(seedlint.engine.pickle, "dumps", too_deep)
    store = FactsStore(cache=None, compact=True)
    facts = store.facts("deep.py", text, "deep", False)
    assert isinstance(facts, ModuleFacts)
    assert store.facts("deep.py", text, "deep", False) is facts


def test_fix_refuses_a_file_it_did_not_keep_that_changed_on_disk(tmp_path, monkeypatch):
    """seeding.py never spells a trigger name, so its text is not kept; it gets a fix from
    SDL003. Edited on disk after the analysis, it must be left alone, not fixed against
    the new text."""
    root = tmp_path / "proj"
    shutil.copytree(FIXTURES / "SDL003" / "partial_across_modules", root, ignore=shutil.ignore_patterns("*.fixed.py", "expected"))
    seeding = root / "mmlite" / "utils" / "seeding.py"
    analyse = Engine._analyse
    calls = []

    def analyse_then_edit(self, *args, **kwargs):
        result = analyse(self, *args, **kwargs)
        if not calls:
            seeding.write_text(seeding.read_text().replace("def worker_init_fn", "# edited\n\ndef worker_init_fn"))
        calls.append(1)
        return result

    unchanged = Engine(Settings()).fix([str(root)])
    assert [Path(p).name for p in unchanged.new_text] == ["seeding.py"]

    monkeypatch.setattr(Engine, "_analyse", analyse_then_edit)
    result = Engine(Settings()).fix([str(root)])
    assert result.new_text == {}
    assert [(Path(e.path).name, e.reason) for e in result.errors] == [
        ("seeding.py", "changed on disk while seedlint was fixing it; left as it is")
    ]


def test_paused_collector_still_collects_each_files_cycles():
    """libcst evaluates string literals with ast.literal_eval, whose closures leave
    cycles; with the collector paused they must not pile up file after file."""
    text = "\n".join(f"NAME_{i} = 'value {i}'" for i in range(300)) + "\n"
    gc.collect()
    with collection_paused():
        before = len(gc.get_objects())
        for number in range(20):
            _parse_facts((f"m{number}.py", text, f"m{number}", False))
        grown = len(gc.get_objects()) - before
    assert grown < 2000, grown
