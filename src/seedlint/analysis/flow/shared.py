"""Constants and helper functions the value-flow families share: the bounds, ``union``
of value sets, and small readers of facts (spellings, spans, reaching assignments).
"""

from __future__ import annotations

import dataclasses
from typing import Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from seedlint import timing
from seedlint.analysis.objects import (
    UNKNOWN_SET,
    ClassObj,
    Constant,
    ExternalInstance,
    Frame,
    FunctionObj,
    Instance,
    ModuleObj,
    Obj,
    SeqObj,
    Values,
)
from seedlint.facts.model import (
    Attr,
    Call,
    Class,
    Const,
    Function,
    Guard,
    Name,
    Seq,
    Span,
    Value,
)


MAX_EVAL_DEPTH = 48
"""Nested evaluations before an answer is given up as UNKNOWN."""
MAX_VALUES = 128
"""A value set wider than this keeps its first members and UNKNOWN."""
LIST_MUTATORS = {"append": False, "extend": True, "insert": False, "add": False}
"""Methods that add to a list (True: the argument's elements, not the argument)."""
DICT_MUTATORS = frozenset({"update", "setdefault"})


def union(sets: Iterable[Values]) -> Values:
    found: Set[Obj] = set()
    for values in sets:
        found |= values
    if len(found) > MAX_VALUES:
        timing.limit_hit("value set width")
        kept = sorted(found, key=lambda o: repr(o.key))[:MAX_VALUES]
        return frozenset(kept) | UNKNOWN_SET
    return frozenset(found)


def _before(a: Span, b: Span) -> bool:
    return (a.end_line, a.end_col) <= (b.line, b.col)


def _reaching(function: Function, assigns: List, read: Span, read_guards: Optional[Tuple[Guard, ...]] = None) -> Tuple[List, bool]:
    """The assignments that may reach a read: the last one that runs whenever the read does
    (unconditionally, or under guards the read also runs under) before it, and any after
    that one (in a branch, or later in a loop around the read); none made in a block that
    ends with ``return`` or ``raise`` unless the read is in it too, and none in a branch
    the read's own guards exclude (the other arm of an ``if``/``elif``)."""
    def in_loop(span: Span) -> bool:
        return any(_inside(loop.span, span) for loop in function.loops)

    assigns = [a for a in assigns if not any(_inside(exit, a.span) and not _inside(exit, read) for exit in function.exits)]
    if read_guards:
        assigns = [a for a in assigns if not _excluded_by(a.guards, read_guards, function)]
    loops_around_read = [loop.span for loop in function.loops if _inside(loop.span, read)]
    killers = [
        a for a in assigns
        if _implied_by(a.guards, read_guards or ()) and _before(a.span, read) and not in_loop(a.span)
    ]
    if not killers:
        # Without an unconditional one, every assignment before the read may reach it, and
        # later ones only through a loop around it (not ``x = f(x)``'s own target).
        kept = [a for a in assigns if _before(a.span, read) or any(_inside(loop, a.span) for loop in loops_around_read)]
        return _after_exhaustive_branches(kept, read, read_guards or (), in_loop)
    last = max(killers, key=lambda a: (a.span.line, a.span.col))
    kept = []
    for assign in assigns:
        if assign is last:
            kept.append(assign)
        elif (assign.span.line, assign.span.col) > (last.span.line, last.span.col):
            if _before(assign.span, read) or any(_inside(loop, assign.span) for loop in loops_around_read):
                kept.append(assign)
    return _after_exhaustive_branches(kept, read, read_guards or (), in_loop)[0], True


def _after_exhaustive_branches(assigns: List, read: Span, read_guards: Sequence[Guard], in_loop) -> Tuple[List, bool]:
    """Drop the assignments that every arm of a later ``if``/``elif``/``else`` overwrites
    (``mode = None``, then ``mode = "train"`` / ``"test"`` / ``"val"`` in the arms): some
    arm's assignment runs on every path before the read. True when one does (the value the
    name had before, a parameter's too, never reaches the read)."""
    branched = [a for a in assigns if _before(a.span, read) and not in_loop(a.span) and not _implied_by(a.guards, read_guards)]
    if not branched:
        return assigns, False
    extras = [tuple(g for g in a.guards if not any(g[0] is other and g[1] == truth for other, truth in read_guards)) for a in branched]
    if not _covers(extras):
        return assigns, False
    first = min(branched, key=lambda a: (a.span.line, a.span.col))
    return [a for a in assigns if (a.span.line, a.span.col) >= (first.span.line, first.span.col)], True


def _covers(paths: List[Tuple[Guard, ...]], depth: int = 0) -> bool:
    """Every combination of the tests' truth values satisfies one of the guard paths."""
    if any(not path for path in paths):
        return True
    if depth > 16:
        return False
    test = paths[0][0][0]
    holds, fails = [], []
    for path in paths:
        if path[0][0] is test:
            (holds if path[0][1] else fails).append(path[1:])
    return bool(holds) and bool(fails) and _covers(holds, depth + 1) and _covers(fails, depth + 1)


def _implied_by(guards: Sequence[Guard], read_guards: Sequence[Guard]) -> bool:
    """Every guard of an assignment also guards the read (same test, same truth)."""
    return all(any(test is other and holds == truth for other, truth in read_guards) for test, holds in guards)


def _excluded_by(guards: Sequence[Guard], read_guards: Sequence[Guard], function: Optional[Function] = None) -> bool:
    """Some guard of an assignment is a test the read runs under with the other truth: the
    same ``if``, or (given the function) another ``if`` on the same flag that nothing in
    the function rebinds (``if use_webdataset: ds = ...`` / ``else: ds = ...``, then
    ``if use_webdataset: loader = WebLoader(ds)``)."""
    return any(
        holds != truth and (test is other or (function is not None and _same_flag(test, other, function)))
        for test, holds in guards for other, truth in read_guards
    )


def _same_flag(test: Value, other: Value, function: Function) -> bool:
    """Two tests of one name or attribute chain (``use_wds``, ``args.wds``; not one on
    ``self``, which other methods may change) that the function does not assign to, nor to
    any object the chain goes through, from the first of them on."""
    if not (isinstance(test, Name) and isinstance(other, Name)):
        return False
    if (test.dotted, test.qualified, test.scope) != (other.dotted, other.qualified, other.scope) or test.root == "self":
        return False
    parts = test.dotted.split(".")
    chain = {".".join(parts[:cut]) for cut in range(1, len(parts) + 1)}
    first = min((test.span.line, test.span.col), (other.span.line, other.span.col))
    return not any(a.target in chain and (a.span.line, a.span.col) >= first for a in function.assigns)


def names_read(value: Value) -> Iterator[Name]:
    """The names an expression reads, at any depth (not those of the ``if`` guards a
    call runs under)."""
    pending: list = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, Name):
            yield node
        elif isinstance(node, (list, tuple)):
            pending.extend(node)
        elif dataclasses.is_dataclass(node) and not isinstance(node, type):
            pending.extend(getattr(node, f.name) for f in dataclasses.fields(node) if f.name != "guards")


def _inside(outer: Span, inner: Span) -> bool:
    return (outer.line, outer.col) <= (inner.line, inner.col) and (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)


def _option_dest(call: Call) -> Optional[str]:
    """Where ``add_argument`` stores its option: ``dest=``, else the first long flag."""
    dest = call.kwarg("dest")
    if isinstance(dest, Const) and isinstance(dest.value, str):
        return dest.value
    flags = [a.value for a in call.args if isinstance(a, Const) and isinstance(a.value, str)]
    long = [f for f in flags if f.startswith("--")]
    chosen = long[0] if long else (flags[0] if flags else None)
    return chosen.lstrip("-").replace("-", "_") if chosen else None


def _same_parser(holder: Obj, parser: ExternalInstance) -> bool:
    """The same ``ArgumentParser(...)`` call, whatever context it was evaluated in."""
    return isinstance(holder, ExternalInstance) and holder.site.call is parser.site.call


def _group_of(holder: ExternalInstance, parser: ExternalInstance, flow, frame: Frame) -> bool:
    """``holder`` is an argument group of ``parser`` (``parser.add_argument_group(...)``)."""
    func = holder.site.call.func
    if not (isinstance(func, Name) and func.dotted.endswith((".add_argument_group", ".add_mutually_exclusive_group"))):
        return False
    receiver = Name(func.dotted.rsplit(".", 1)[0], func.span, func.qualified.rsplit(".", 1)[0] if func.qualified else None, func.scope)
    return any(_same_parser(h, parser) for h in flow.eval(receiver, holder.site.frame))


def _default(function: Function, name: str) -> Optional[Value]:
    for key, value in function.defaults:
        if key == name:
            return value
    return None


def _is_classmethod(function: Function) -> bool:
    return any(isinstance(d, Name) and d.dotted == "classmethod" for d in function.decorators)


def method_receiver(func: Name) -> Name:
    """``parser`` in ``parser.add_argument``, ``self.g`` in ``self.g.manual_seed``: the name a
    dotted method call is made on, read where the call is."""
    head = func.dotted.rsplit(".", 1)[0]
    return Name(head, func.span, func.qualified.rsplit(".", 1)[0] if func.qualified else None, func.scope)


def _spelled(value: Value) -> str:
    if isinstance(value, Name):
        return value.dotted.rsplit(".", 1)[-1]
    if isinstance(value, Call):
        return _spelled(value.func)
    if isinstance(value, Attr):
        return value.attr
    return ""


def _spelled_last(call: Call) -> str:
    return _spelled(call.func)


def _is_dict_mutator(call: Call) -> bool:
    return _spelled_last(call) in DICT_MUTATORS


def _names_dataset(value: Value) -> bool:
    """``info.dataset``, ``get_worker_info().dataset``."""
    if isinstance(value, Name):
        return value.dotted.endswith(".dataset")
    return isinstance(value, Attr) and value.attr == "dataset"


def _is_dataclass(cls: Class) -> bool:
    return any(_spelled(d) == "dataclass" for d in cls.decorators)


def _is_super_init(call: Call) -> bool:
    """``super().__init__(...)`` (the receiver is implicit), not ``Base.__init__(self, ...)``."""
    func = call.func
    return isinstance(func, Attr) and isinstance(func.value, Call) and _spelled(func.value.func) == "super"


def _constant_strings(value: Value) -> Optional[Tuple[str, ...]]:
    """The strings of ``"a"`` or ``["a", "b"]``; None when they are not all constant."""
    items = value.items if isinstance(value, Seq) else (value,)
    if all(isinstance(i, Const) and isinstance(i.value, str) for i in items):
        return tuple(i.value for i in items)
    return None


def _closed_sequence(obj: Obj) -> bool:
    return isinstance(obj, SeqObj) and obj.indexable and not obj.open and not any(e.spread for e in obj.entries)


def _specific(frame: Frame) -> bool:
    return frame.site is not None or (isinstance(frame.receiver, Instance) and frame.receiver.site is not None)


def _same_library_class(a: str, b: str) -> bool:
    """The same library class under two import paths (``torch.utils.data.IterableDataset``
    and ``torch.utils.data.dataset.IterableDataset``)."""
    if a == b:
        return True
    head_a, _, last_a = a.rpartition(".")
    head_b, _, last_b = b.rpartition(".")
    return last_a == last_b and (head_a.startswith(head_b + ".") or head_b.startswith(head_a + "."))


def _simple(value: Value) -> bool:
    """A name, an attribute chain or a constant: what a guard is decided from."""
    return isinstance(value, (Name, Const)) or (isinstance(value, Attr) and _simple(value.value))


def combined_truth(op: str, parts: Sequence[Optional[bool]]) -> Optional[bool]:
    """The truth of ``a and b`` / ``a or b`` from its operands' truths (None: undecided)."""
    if op == "and":
        return False if False in parts else (True if all(p is True for p in parts) else None)
    return True if True in parts else (False if all(p is False for p in parts) else None)


def _truth_of(obj: Obj) -> Optional[bool]:
    if isinstance(obj, Constant):
        try:
            return bool(obj.value)
        except Exception:
            return None
    if isinstance(obj, (ClassObj, FunctionObj, ModuleObj)):
        return True
    return None


def _compare_constants(op: str, a: object, b: object) -> Optional[bool]:
    try:
        if op == "==":
            return a == b
        if op == "!=":
            return a != b
        if op == "is":
            return a is b if a is None or b is None or isinstance(a, bool) else a == b
        if op == "is not":
            return a is not b if a is None or b is None or isinstance(a, bool) else a != b
        if op == "in":
            return a in b  # type: ignore[operator]
        if op == "not in":
            return a not in b  # type: ignore[operator]
        if op == "<":
            return a < b  # type: ignore[operator]
        if op == "<=":
            return a <= b  # type: ignore[operator]
        if op == ">":
            return a > b  # type: ignore[operator]
        if op == ">=":
            return a >= b  # type: ignore[operator]
    except Exception:
        return None
    return None
