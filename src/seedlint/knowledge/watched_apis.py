"""The APIs the facts pass watches for, from the version and platform catalogues, and what
counts as a feature check that makes a use say nothing about the environment.

A use is recorded as a key: a qualified name (``torch.compile``, ``lightning.pytorch``), a
keyword of a call (``torch.utils.data.DataLoader(persistent_workers=)``), or a constant
backend (``torch.distributed.init_process_group(backend=nccl)``).
"""

from __future__ import annotations

from typing import FrozenSet, Optional

from seedlint.facts.model import Attr, BoolOp, Call, Compare, Const, Name, Not, Value
from seedlint.knowledge.api_versions import ERAS_BY_API, VOIDING_WRITES, era_of
from seedlint.knowledge.platforms import LINUX_ONLY, UNIX_ONLY

WATCHED_ROOTS: FrozenSet[str] = frozenset(
    key.split(".", 1)[0].split("(", 1)[0] for key in (*ERAS_BY_API, *LINUX_ONLY, *UNIX_ONLY, *VOIDING_WRITES)
)
"""The top-level packages whose names the facts pass looks at."""


def watched(key: str) -> Optional[str]:
    """The catalogue key ``key`` stands for (an API it is or lies under, or an attribute
    write ``numpy.sctypes=``), else None."""
    if key in LINUX_ONLY or key in UNIX_ONLY or (key.endswith("=") and key[:-1] in VOIDING_WRITES):
        return key
    parts = key.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        if ".".join(parts[:cut]) in LINUX_ONLY or ".".join(parts[:cut]) in UNIX_ONLY:
            return ".".join(parts[:cut])
    era = era_of(key)
    return era.api if era is not None else None


_FEATURE_WORDS = ("version", "available", "has_", "_has", "supports", "is_torch", "torch_", "_torch", "lightning_", "_pl_")


def is_feature_check(test: Value) -> bool:
    """Whether an ``if`` test checks what is installed rather than what the run was asked
    to do: ``hasattr(torch, "compile")``, ``torch.__version__ >= "2"``, ``_TORCH_GREATER_EQUAL_2_0``,
    ``is_torch_available()``, ``importlib.util.find_spec("lightning")``."""
    if isinstance(test, Name):
        lowered = test.dotted.lower()
        return any(word in lowered for word in _FEATURE_WORDS) or lowered.endswith("find_spec")
    if isinstance(test, Call):
        if isinstance(test.func, Name) and test.func.dotted in ("hasattr", "getattr", "callable"):
            return True
        return is_feature_check(test.func) or any(is_feature_check(arg) for arg in test.args)
    if isinstance(test, Attr):
        return "version" in test.attr.lower() or is_feature_check(test.value)
    if isinstance(test, Compare):
        return is_feature_check(test.left) or is_feature_check(test.right) or _version_text(test.left) or _version_text(test.right)
    if isinstance(test, BoolOp):
        return any(is_feature_check(value) for value in test.values)
    if isinstance(test, Not):
        return is_feature_check(test.value)
    return False


def _version_text(value: Value) -> bool:
    if isinstance(value, Const) and isinstance(value.value, str):
        text = value.value
        return bool(text) and text[0].isdigit() and "." in text
    return isinstance(value, Const) and isinstance(value.value, tuple)
