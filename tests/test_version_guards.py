"""Tests of the torch version decided from the declared range: plain ``torch.__version__``
compares as text before torch 1.10 and as a version from 1.10 on; a parsed version
(``digit_version``, ``LooseVersion``, ``packaging.version.parse``) always as a version; a
range on both sides of the answer leaves the test open."""

from __future__ import annotations

import pytest

from seedlint.analysis.flow.version_guards import torch_version_truth
from seedlint.facts.model import Call, Compare, Const, Name
from seedlint.span import Span
from seedlint.versions import range_from_specifiers

SPAN = Span(1, 0, 1, 1)
RAW = Name("torch.__version__", SPAN, "torch.__version__", "")


def parsed(value, parser="mmcv.utils.digit_version"):
    return Call(Name(parser.rsplit(".", 1)[-1], SPAN, parser, ""), (value,), (), SPAN)


@pytest.mark.parametrize("declared, op, left, right, expected", [
    ("==1.7.1", ">=", RAW, Const("1.8.0"), False),
    ("==1.7.1", "<", RAW, Const("1.8.0"), True),
    ("==1.8.1", ">=", RAW, Const("1.10"), True),  # "1.8.1" >= "1.10" as text
    ("==1.8.1", ">=", parsed(RAW), parsed(Const("1.10")), False),
    ("==1.8.1", ">=", parsed(RAW, "distutils.version.LooseVersion"), Const("1.10"), False),
    ("==2.1.0", ">=", RAW, Const("1.10"), True),  # TorchVersion compares as a version
    (">=1.12", "<", Const("1.9"), RAW, True),  # the version on the right
    (">=1.4,<1.9", ">=", RAW, Const("1.8.0"), None),  # 1.4 and 1.8 answer differently
    (">=1.8,<2.0", ">=", RAW, Const("1.9"), None),
    (">=1.8", ">", parsed(RAW, "packaging.version.parse"), parsed(Const("1.7"), "packaging.version.parse"), True),
    ("==1.7.1", ">", parsed(RAW), parsed(Const("1.7.1")), False),
    ("", ">=", RAW, Const("1.8.0"), None),  # nothing declared
    ("==1.7.1", "==", RAW, Const("1.7.1"), None),  # not an ordering
    ("==1.7.1", ">=", Name("args.version", SPAN, None, "main"), Const("1.8.0"), None),
])
def test_torch_version_tests(declared, op, left, right, expected):
    torch_range = range_from_specifiers(declared) if declared else range_from_specifiers("")
    assert torch_version_truth(Compare(op, left, right), lambda: torch_range) is expected
