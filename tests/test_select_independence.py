"""A finding does not depend on which other rules run: each must-flag fixture gives, with
``--select`` of its own rule alone, exactly what it gives with every rule. The analysis
reads files lazily, and which files a rule's prefilter admits must not change another
rule's findings (Time-LLM: SDL008 saw `Accelerator()` only when SDL009 had the script
parsed). The messages are the same too (StyleTTS2's training script, which draws from
NumPy between epochs, was read only when another rule's trigger kept it)."""

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
    # The messages too: how a loader is read (one pass, or a main process that draws between
    # epochs) is known only from the files that read it.
    together = Engine(settings).check([str(project)])
    assert [d.message for d in alone.diagnostics] == [d.message for d in together.diagnostics if d.code == case.code]
