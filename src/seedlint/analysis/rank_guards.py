"""Calls that run on one rank only: under a test that the process is the main one
(``if accelerator.is_main_process:``, ``if dist.get_rank() == 0:``, ``if args.local_rank in
[-1, 0]:``, ``if is_main_process():``), directly or because every call of the function that
makes them is under one (hallo: ``log_validation`` reseeds torch, and only the main process
calls it). A seeding made so is not the same on every rank.
"""

from __future__ import annotations

from typing import Iterable, Tuple

from seedlint.facts.model import Attr, BoolOp, Call, Compare, Const, Name, Not, Seq

MAIN_PROCESS_NAMES = frozenset({
    "is_main_process", "is_local_main_process", "is_global_zero", "is_master", "is_main", "is_primary",
    "is_rank_zero", "is_rank_0", "is_master_process", "main_process", "master_process", "is_local_master",
    "is_main_rank", "is_root", "is_leader",
})
"""Names (an attribute, a flag or a function) whose truth means this process is the main one:
accelerate's ``is_main_process`` and ``is_local_main_process``, Lightning's ``is_global_zero``,
and the helpers projects write under these names."""
RANK_WORDS = ("rank", "process_index")
"""Words in a name that holds the process's rank (``args.local_rank``, ``dist.get_rank()``,
``accelerator.process_index``)."""
MAX_CALLER_LEVELS = 2


def on_one_rank(guards: Iterable[Tuple[object, bool]]) -> bool:
    """Some guard holds only on the main process."""
    return any(_main_process_test(test, expected) for test, expected in guards)


def runs_on_one_rank(flow, frame, call: Call, levels: int = MAX_CALLER_LEVELS) -> bool:
    """The call runs on one rank only: its own guards say so, or every known call of its
    function (up to ``levels`` callers up) is made under such a guard."""
    return on_one_rank(call.guards) or _called_on_one_rank(flow, frame, levels)


def _called_on_one_rank(flow, frame, levels: int) -> bool:
    if levels <= 0:
        return False
    sites, complete = flow.callsites.of(frame)
    if not complete or not sites:
        return False
    return all(on_one_rank(site.call.guards) or _called_on_one_rank(flow, site.frame, levels - 1) for site in sites)


def _main_process_test(test, expected: bool) -> bool:
    if isinstance(test, Not):
        return _main_process_test(test.value, not expected)
    if isinstance(test, BoolOp):
        if test.op == "and" and expected:
            return any(_main_process_test(value, True) for value in test.values)
        if test.op == "or" and not expected:
            return any(_main_process_test(value, False) for value in test.values)
        return False
    if isinstance(test, Compare):
        return _rank_is_zero(test, expected)
    return expected and _last_name(test) in MAIN_PROCESS_NAMES


def _rank_is_zero(test: Compare, expected: bool) -> bool:
    """``rank == 0`` holding (or ``rank != 0`` failing), ``local_rank in [-1, 0]`` holding."""
    if (test.op == "==" and expected) or (test.op == "!=" and not expected):
        for rank, other in ((test.left, test.right), (test.right, test.left)):
            if _names_rank(rank) and isinstance(other, Const) and other.value == 0:
                return True
        return False
    if test.op == "in" and expected and _names_rank(test.left) and isinstance(test.right, Seq):
        values = [item.value if isinstance(item, Const) else None for item in test.right.items]
        return bool(values) and all(value in (-1, 0) for value in values) and 0 in values
    return False


def _names_rank(value) -> bool:
    last = _last_name(value).lower()
    return any(word in last for word in RANK_WORDS)


def _last_name(value) -> str:
    if isinstance(value, Call):
        value = value.func
    if isinstance(value, Name):
        return value.dotted.rsplit(".", 1)[-1]
    if isinstance(value, Attr):
        return value.attr
    return ""
