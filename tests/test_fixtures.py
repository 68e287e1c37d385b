"""The generic fixture test: every case's diagnostics and exact --fix output.

Set SEEDLINT_REGENERATE=1 to rewrite the expectations from the current behaviour, then
read the diff before committing.
"""

from __future__ import annotations

import os

import libcst as cst
import pytest

from seedlint import legacy_names
from seedlint.engine import Engine
from fixture_cases import REGENERATE, all_cases, diagnostics_lines, run_case

CASES = all_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_fixture(case, tmp_path):
    project, settings, checked, fixed, changed = run_case(case, tmp_path)
    assert not checked.errors, checked.errors
    found = diagnostics_lines(checked, project)
    if REGENERATE:
        case.expected_file.write_text("".join(f"{line}\n" for line in found))
        for relative, text in changed.items():
            case.fixed_file(relative).write_text(text)
    expected = case.expected_file.read_text().split("\n") if case.expected_file.exists() else []
    assert found == [line for line in expected if line.strip()]
    assert all(f" {case.code}" in line for line in found) or not found, "a case exercises its own rule"

    expected_fixed = {}
    base = case.source if case.is_dir else case.source.parent
    for path in (base.rglob("*.fixed.py") if case.is_dir else [case.fixed_file("")]):
        if path.exists():
            relative = str(path.relative_to(base)).replace(".fixed.py", ".py") if case.is_dir else case.source.name
            expected_fixed[relative.replace(os.sep, "/")] = path.read_text()
    assert changed == expected_fixed

    for relative, text in changed.items():
        checked, _ = legacy_names.parseable(text)  # code written for Python 3.6 compiles there
        cst.parse_module(checked)
        compile(checked, relative, "exec")
        (project / relative).write_text(text)
    again = Engine(settings).fix([str(project)])
    assert again.new_text == {}, "a second --fix changes nothing"
    remaining = Engine(settings).check([str(project)])
    assert not [d for d in remaining.diagnostics if d.fix is not None and d.fix.safe and changed]


def test_every_rule_has_flag_and_no_flag_cases():
    from seedlint.rules import RULES

    by_code = {}
    for case in CASES:
        expected = case.expected_file.read_text().strip() if case.expected_file.exists() else ""
        by_code.setdefault(case.code, set()).add(bool(expected))
    for rule in RULES:
        assert by_code.get(rule.code) == {True, False}, f"{rule.code} needs must-flag and must-not-flag fixtures"
