"""Tests of the torch version the project runs: ``torch.__version__ >= "1.8.0"``,
``digit_version(torch.__version__) < digit_version("1.9")``, ``LooseVersion(torch.__version__)
>= "1.10"``, decided from the declared torch range where every version in it gives the same
answer. A branch for another torch release does not run (mmcv-style compatibility code).

``torch.__version__`` is a plain ``str`` before torch 1.10, compared character by character
(``"1.10.0" >= "1.8.0"`` is False), and a ``TorchVersion`` from 1.10 on, compared as a version
(``torch/torch_version.py``); a parsed version always compares as a version.
"""

from __future__ import annotations

from typing import Callable, Optional, Tuple

from packaging.version import InvalidVersion, Version

from seedlint.facts.model import Call, Compare, Const, Name, Value
from seedlint.versions import VersionRange

TORCH_VERSION = frozenset({"torch.__version__", "torch.version.__version__"})
VERSION_PARSERS = frozenset({
    "mmcv.digit_version", "mmcv.utils.digit_version", "mmcv.utils.version_utils.digit_version",
    "mmengine.digit_version", "mmengine.utils.digit_version", "mmengine.utils.version_utils.digit_version",
    "distutils.version.LooseVersion", "distutils.version.StrictVersion",
    "packaging.version.parse", "packaging.version.Version", "pkg_resources.parse_version",
})
"""Callables that turn a version string into an object compared as a version."""
VERSION_OBJECT_FROM = "1.10"
"""The first torch release whose ``__version__`` compares as a version (``TorchVersion``)."""
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def torch_version_truth(value: Compare, torch_range: Callable[[], VersionRange]) -> Optional[bool]:
    """True or False when the comparison has that outcome on every torch version the
    project declares; None when it is not a torch-version test or the range straddles it."""
    if value.op not in _FLIPPED:
        return None
    op, left, right = value.op, value.left, value.right
    if _version_side(right) is not None and _version_side(left) is None:
        op, left, right = _FLIPPED[op], right, left
    kind = _version_side(left)
    bound = _constant_version(right)
    if kind is None or bound is None:
        return None
    declared = torch_range()
    if not declared.declared:
        return None
    numeric = _as_versions(declared, op, bound)
    if kind == "parsed" or not declared.may_be_below(VERSION_OBJECT_FROM):
        return numeric
    text = _as_text(declared, op, bound)
    if not declared.may_be_at_least(VERSION_OBJECT_FROM):
        return text
    return text if text is not None and text == numeric else None


def _version_side(value: Value) -> Optional[str]:
    """"raw" for ``torch.__version__``, "parsed" for a parser applied to it, else None."""
    if isinstance(value, Name) and value.qualified in TORCH_VERSION:
        return "raw"
    if isinstance(value, Call) and isinstance(value.func, Name) and value.func.qualified in VERSION_PARSERS:
        if len(value.args) == 1 and _version_side(value.args[0]) == "raw":
            return "parsed"
    return None


def _constant_version(value: Value) -> Optional[str]:
    if isinstance(value, Call) and isinstance(value.func, Name) and value.func.qualified in VERSION_PARSERS and len(value.args) == 1:
        value = value.args[0]
    if isinstance(value, Const) and isinstance(value.value, str):
        try:
            Version(value.value)
        except InvalidVersion:
            return None
        return value.value
    return None


def _as_versions(declared: VersionRange, op: str, bound: str) -> Optional[bool]:
    at_least = declared.may_be_at_least(bound)
    below = declared.may_be_below(bound)
    if op in (">=", "<"):
        holds = True if not below else (False if not at_least else None)
        return holds if op == ">=" or holds is None else not holds
    above = _may_be_above(declared, bound)
    holds = False if not above else (True if not below and not _may_equal(declared, bound) else None)
    return holds if op == ">" or holds is None else not holds


def _may_be_above(declared: VersionRange, bound: str) -> bool:
    if declared.upper is None:
        return True
    return declared.upper.version > Version(bound)


def _may_equal(declared: VersionRange, bound: str) -> bool:
    return declared.may_be_at_least(bound) and not (declared.lower is not None and declared.lower.version > Version(bound))


def _as_text(declared: VersionRange, op: str, bound: str) -> Optional[bool]:
    """The plain-``str`` comparison, decided when the range's two ends (within one torch
    1.x minor series) compare the same way."""
    ends = _ends(declared)
    if ends is None:
        return None
    outcomes = {_compare_text(end, op, bound) for end in ends}
    return outcomes.pop() if len(outcomes) == 1 else None


def _ends(declared: VersionRange) -> Optional[Tuple[str, str]]:
    if declared.lower is None or declared.upper is None:
        return None
    low, high = declared.lower.version, declared.upper.version
    if low.release[:2] != high.release[:2]:
        return None  # several minor series: "1.9" and "1.10" compare differently as text
    return ".".join(map(str, low.release)), ".".join(map(str, high.release))


def _compare_text(text: str, op: str, bound: str) -> bool:
    return {"<": text < bound, "<=": text <= bound, ">": text > bound, ">=": text >= bound}[op]
