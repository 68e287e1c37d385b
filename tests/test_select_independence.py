"""A finding does not depend on which other rules run: each must-flag fixture gives, with
``--select`` of its own rule alone, exactly what it gives with every rule. The analysis
reads files lazily, and which files a rule's prefilter admits must not change another
rule's findings (Time-LLM: SDL008 saw `Accelerator()` only when SDL009 had the script
parsed)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from seedlint.engine import Engine
from fixture_cases import all_cases, diagnostics_lines

FLAGGING = [case for case in all_cases() if case.expected_file.exists() and case.expected_file.read_text().strip()]


@pytest.mark.parametrize("case", FLAGGING, ids=[c.id for c in FLAGGING])
def test_own_rule_alone_finds_what_every_rule_finds(case, tmp_path):
    project = case.install(tmp_path)
    settings = case.settings_for(project)
    alone = Engine(replace(settings, select=(case.code,), extend_select=())).check([str(project)])
    assert not alone.errors, alone.errors
    expected = [line for line in case.expected_file.read_text().split("\n") if line.strip()]
    assert diagnostics_lines(alone, project) == expected
