"""Python 3.6 modules that use ``async``/``await`` as names are read with same-length
stand-ins: every position stays, real coroutines are left alone, and a fix written on the
stand-in text comes back with the names."""

from __future__ import annotations

import libcst as cst

from seedlint import legacy_names
from seedlint.engine import Engine
from seedlint.config import Settings

OLD_SCRIPT = """\
def step(batch, async=False):
    images = batch.cuda(async=async)
    return images.async, f(async)
"""


def test_names_become_stand_ins_of_the_same_length():
    legacy = legacy_names.substitute(OLD_SCRIPT)
    assert legacy is not None
    assert [len(line) for line in legacy.text.splitlines()] == [len(line) for line in OLD_SCRIPT.splitlines()]
    assert "async" not in legacy.text
    cst.parse_module(legacy.text)
    assert legacy.restore(legacy.text) == OLD_SCRIPT


def test_coroutines_and_modules_without_the_names_are_left_alone():
    modern = "async def load(x):\n    async with x as y:\n        return await y\n"
    assert legacy_names.substitute(modern) is None
    assert legacy_names.parseable(modern) == (modern, None)


def test_a_stand_in_the_module_already_spells_is_not_used():
    text = "ASYNC = 1\nx.cuda(async=True)\n"
    legacy = legacy_names.substitute(text)
    assert legacy is not None and "ASYNC = 1" in legacy.text and "Async=True" in legacy.text


def test_a_module_with_the_names_is_checked_not_reported_unparsable(tmp_path):
    (tmp_path / "setup.cfg").write_text("")
    (tmp_path / "train.py").write_text(
        "import torch\nfrom torch.utils.data import DataLoader\n\n"
        "for batch in DataLoader(range(8), num_workers=2):\n    batch.cuda(async=True)\n"
    )
    result = Engine(Settings()).check([str(tmp_path)])
    assert not result.errors
    assert result.files_checked == 1
