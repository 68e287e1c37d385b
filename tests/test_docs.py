"""Rule documentation: every registered rule has its sections, and the committed pages under
docs/rules/ are exactly what ``python -m seedlint.docs`` generates from the rules."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from seedlint import docs
from seedlint.rules import RULES

DOCS = Path(__file__).resolve().parents[1] / "docs" / "rules"
SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety")


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_rule_documentation_has_every_section_in_order(rule):
    text = rule.documentation()
    positions = [text.find(section) for section in SECTIONS]
    assert -1 not in positions, f"{rule.code} lacks {SECTIONS[positions.index(-1)]}"
    assert positions == sorted(positions)
    assert rule.summary and rule.name and rule.fix_safety in ("safe", "unsafe", None)


def test_committed_pages_are_up_to_date():
    stale = docs.stale_pages(str(DOCS))
    assert not stale, f"stale rule pages {stale}: run `python -m seedlint.docs` and commit docs/rules/"


def test_index_links_every_rule():
    index = (DOCS / "README.md").read_text()
    for rule in RULES:
        assert f"[{rule.code}]({rule.code}.md)" in index


def test_generator_writes_checks_and_prunes(tmp_path, capsys):
    target = str(tmp_path / "rules")
    assert docs.main(["--check", target]) == 1
    assert docs.main([target]) == 0
    assert sorted(p.name for p in (tmp_path / "rules").iterdir()) == sorted([f"{r.code}.md" for r in RULES] + ["README.md"])
    assert docs.main(["--check", target]) == 0

    first = tmp_path / "rules" / f"{RULES[0].code}.md"
    first.write_text(first.read_text() + "hand edit\n")
    (tmp_path / "rules" / "SDL999.md").write_text("# a rule that no longer exists\n")
    capsys.readouterr()
    assert docs.main(["--check", target]) == 1
    err = capsys.readouterr().err
    assert f"{first.name}: stale" in err and "SDL999.md: stale" in err
    assert docs.main([target]) == 0
    assert not (tmp_path / "rules" / "SDL999.md").exists()
    assert docs.stale_pages(target) == []


def test_generator_runs_as_a_module(tmp_path):
    target = tmp_path / "rules"
    written = subprocess.run([sys.executable, "-m", "seedlint.docs", str(target)], capture_output=True, text=True)
    assert written.returncode == 0 and (target / "README.md").exists() and (target / "SDL001.md").exists()
    assert f"{target / 'README.md'}" in written.stdout.splitlines()


def test_explain_prints_the_rule_page():
    rule = RULES[0]
    completed = subprocess.run([sys.executable, "-m", "seedlint", "--explain", rule.code.lower()],
                               capture_output=True, text=True)
    assert completed.returncode == 0
    assert completed.stdout == docs.rule_page(rule, note=False)
    assert completed.stdout.startswith(f"# {rule.code}: {rule.name}\n")


def test_every_fixture_the_value_flow_page_names_exists():
    root = DOCS.parents[1]
    page = (DOCS.parent / "value-flow.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`(SDL\d{3}/[A-Za-z0-9_.]+)`", page))
    assert named, "docs/value-flow.md names no fixture"
    missing = sorted(
        name for name in named
        if not (root / "fixtures" / name).exists() and not list((root / "fixtures").glob(name + ".*"))
    )
    assert not missing, f"docs/value-flow.md names fixtures that do not exist: {missing}"
