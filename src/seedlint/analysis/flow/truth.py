"""Truth: whether a test holds in a frame (constants, comparisons, ``isinstance``, draws in
``[0, 1)`` compared with a constant, the declared torch version), whether guards may hold,
narrowing by ``isinstance``.
"""

from __future__ import annotations

from typing import Optional, Sequence

from seedlint.knowledge.class_ancestry import ancestry
from seedlint.knowledge.global_draws import UNIT_INTERVAL_DRAWS
from seedlint.analysis.objects import (
    NONE,
    NOTHING,
    UNKNOWN,
    ClassObj,
    Constant,
    DictObj,
    Entry,
    External,
    ExternalInstance,
    Frame,
    Instance,
    Obj,
    SeqObj,
    Values,
    hashable,
)
from seedlint.facts.model import (
    Attr,
    BoolOp,
    Call,
    Compare,
    Const,
    Guard,
    Name,
    Not,
    Value,
)
from seedlint.analysis.flow.version_guards import torch_version_truth
from seedlint.analysis.flow.shared import (
    _names_dataset,
    _specific,
    _same_library_class,
    _simple,
    _truth_of,
    _compare_constants,
    combined_truth,
    union,
)


STRING_METHODS = frozenset({"lower", "upper", "casefold", "strip", "lstrip", "rstrip"})
"""String methods without arguments a guard may compare the result of (``name.lower() == "coco"``)."""


MAX_TEST_HOPS = 8
"""Parameters followed up through the calls that pass a tested name on; a guard against
pathological code."""


class TruthMixin:
    def truth(self, value: Value, frame: Frame) -> Optional[bool]:
        """True or False when ``value`` certainly has that truth value in ``frame``."""
        if isinstance(value, Not):
            inner = self.truth(value.value, frame)
            return None if inner is None else not inner
        if isinstance(value, BoolOp):
            return combined_truth(value.op, [self.truth(v, frame) for v in value.values])
        if isinstance(value, Compare):
            return self._compare(value, frame)
        if isinstance(value, Const):
            return bool(value.value)
        if isinstance(value, Call):
            return self.process_group_truth(value, frame)  # ``isinstance(x, T)`` and the like: not decided statically
        if not _simple(value):
            return None
        values = self.eval(value, frame)
        truths = {_truth_of(obj) for obj in values}
        if len(truths) == 1 and None not in truths:
            return truths.pop()
        behind = self._test_behind(value, frame)
        return self.truth(*behind) if behind is not None else (truths.pop() if len(truths) == 1 else None)

    def _test_behind(self, value: Value, frame: Frame, hops: int = 0):
        """The comparison a tested name holds, whose truth the value flow does not compute
        as a value: a parameter every call passes one for (``hard=args.aug == "hard"``), or
        an attribute ``__init__`` sets once from one (``self.is_train = phase == "train"``)
        and no other method rebinds; with the frame it is decided in."""
        if not isinstance(value, Name) or hops >= MAX_TEST_HOPS:
            return None
        function = frame.function.function
        if "." not in value.dotted and value.dotted in function.params and frame.site is not None:
            expressions, complete = self.parameter_expressions(frame, value.dotted)
            if complete and len(expressions) == 1:
                passed, caller = expressions[0]
                if isinstance(passed, (Compare, BoolOp, Not)):
                    return passed, caller
                return self._test_behind(passed, caller, hops + 1)
            return None
        receiver = frame.receiver
        if not isinstance(receiver, Instance) or not function.params or value.dotted.count(".") != 1:
            return None
        owner, attribute = value.dotted.split(".")
        if owner != function.params[0]:
            return None
        init = self.index.method(receiver.cls, "__init__")
        if init is None or not init.function.params:
            return None
        target = f"{init.function.params[0]}.{attribute}"
        assigns = [a for a in init.function.assigns if a.target == target]
        if len(assigns) != 1 or assigns[0].guards or not isinstance(assigns[0].value, (Compare, BoolOp, Not)):
            return None
        for item in self.index.mro(receiver.cls):
            for qualname in item.cls.methods.values():
                method = item.module.functions.get(qualname)
                if method is None or method is init.function or not method.params:
                    continue
                if any(a.target == f"{method.params[0]}.{attribute}" for a in method.assigns):
                    return None
        return assigns[0].value, self.method_frame(init, receiver)

    def _compare(self, value: Compare, frame: Frame) -> Optional[bool]:
        if self.torch_range_for is not None:
            decided = torch_version_truth(value, lambda: self.torch_range_for(frame.module.path))
            if decided is not None:
                return decided
        unit = self._unit_draw_compare(value, frame)
        if unit is not None:
            return unit
        left = self._compared(value.left, frame)
        if value.op in ("in", "not in") and left:
            member = self._membership(left, value.right, frame)
            if member is not None:
                return member if value.op == "in" else not member
        right = self._compared(value.right, frame)
        if left is None or right is None:
            return None
        if not left or not right or not all(isinstance(o, Constant) for o in left | right):
            if value.op in ("is", "is not") and NONE in right and len(right) == 1 and left and UNKNOWN not in left:
                is_none = {obj == NONE for obj in left}
                if len(is_none) == 1:
                    result = is_none.pop()
                    return result if value.op == "is" else not result
            return None
        outcomes = set()
        for a in left:
            for b in right:
                outcome = _compare_constants(value.op, a.value, b.value)
                if outcome is None:
                    return None
                outcomes.add(outcome)
        return outcomes.pop() if len(outcomes) == 1 else None

    def _membership(self, left: Values, container: Value, frame: Frame) -> Optional[bool]:
        """``split in ["train", "trainval"]``: decided when ``split`` and every element of
        the list, tuple or set (a display, whole) are known constants."""
        if not all(isinstance(obj, Constant) for obj in left):
            return None
        outcomes = set()
        for sequence in self.eval(container, frame):
            if isinstance(sequence, DictObj):
                keyed = self._key_membership(left, sequence)
                if keyed is None:
                    return None
                outcomes.add(keyed)
                continue
            if not isinstance(sequence, SeqObj) or sequence.open or any(entry.spread for entry in sequence.entries):
                return None
            elements = [self.eval(entry.value, entry.frame) for entry in sequence.entries]
            if not all(values and all(isinstance(obj, Constant) for obj in values) for values in elements):
                return None
            for obj in left:
                certainly = any(all(other.value == obj.value for other in values) for values in elements)
                possibly = any(any(other.value == obj.value for other in values) for values in elements)
                if certainly != possibly:
                    return None
                outcomes.add(certainly)
        return outcomes.pop() if len(outcomes) == 1 else None

    def _key_membership(self, left: Values, mapping: DictObj) -> Optional[bool]:
        """``"num_workers" in dataloader_args``: decided for a dict whose keys are all seen
        (the ``**kwargs`` of one call: ``f(ds, num_workers=0)`` holds that key). A
        configuration (a loaded file's tree) lacks a key it does not set only where no code
        of the program stores that key (``cfg["seed"] = args.seed``, ``cfg.seed = ...``)."""
        if mapping.open or any(entry.spread or entry.key is Entry.ANY for entry in mapping.entries):
            return None
        keys = {entry.key for entry in mapping.entries}
        outcomes = {obj.value in keys for obj in left}
        if mapping.attributes and False in outcomes and any(self._key_stored(obj.value) for obj in left if obj.value not in keys):
            return None
        return outcomes.pop() if len(outcomes) == 1 else None

    def _key_stored(self, key: object) -> bool:
        """Some analysed code stores ``key`` into a dict or sets it as an attribute."""
        if not hashable(key):
            return False
        stored = self._stored_keys
        for module in self._new_modules("stored keys"):
            for function in module.functions.values():
                stored.update(item.key.value for item in function.item_assigns if isinstance(item.key, Const) and hashable(item.key.value))
        # an attribute set on another object, not an object's own ``self.seed``
        return key in stored or key in self._index_outside_assignments()

    def _compared(self, value: Value, frame: Frame) -> Optional[Values]:
        """What one side of a comparison may be: a name, an attribute chain or a constant, or
        such a string with a case or whitespace method applied (``data.lower()``)."""
        if _simple(value):
            return self.eval(value, frame)
        receiver, method = _string_method_call(value)
        if receiver is None:
            return None
        found = set()
        for obj in self.eval(receiver, frame):
            if isinstance(obj, Constant):
                if not isinstance(obj.value, str):
                    return None  # the method does not exist there: the test raises, not decided
                found.add(Constant(getattr(obj.value, method)()))
            else:
                found.add(obj)
        return frozenset(found)

    def _unit_draw_compare(self, value: Compare, frame: Frame) -> Optional[bool]:
        """``random.random() < p`` where ``p`` is a constant outside (0, 1): decided, since
        the draw lies in [0, 1) (``knowledge.global_draws.UNIT_INTERVAL_DRAWS``)."""
        draw, other, op = value.left, value.right, value.op
        if isinstance(other, Call) and not isinstance(draw, Call):
            draw, other, op = other, draw, {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
        if not (isinstance(draw, Call) and not draw.args and not draw.kwargs and _simple(other)):
            return None
        if not self.callee_names(draw, frame) & UNIT_INTERVAL_DRAWS:
            return None
        values = self.eval(other, frame)
        if not values or not all(isinstance(v, Constant) for v in values):
            return None
        outcomes = set()
        for bound in (v.value for v in values):
            if bound is None:
                outcomes.add(False)  # comparing a float with None raises: the test never holds
                continue
            if not isinstance(bound, (int, float)) or isinstance(bound, bool):
                return None
            if op in ("<", "<="):
                outcome = False if bound <= 0 and not (op == "<=" and bound == 0) else (True if bound >= 1 else None)
            elif op in (">", ">="):
                outcome = True if bound < 0 else (False if bound >= 1 else None)
            else:
                outcome = None
            outcomes.add(outcome)
        return outcomes.pop() if len(outcomes) == 1 else None

    def guards_may_hold(self, guards: Sequence[Guard], frame: Frame) -> bool:
        """False when some guard certainly fails in ``frame`` (the code cannot run there).
        Decided only in a frame with a context of its own (a call site, or an object built
        at a known call): called from anywhere, a flag may be anything."""
        if not guards:
            return True
        specific = _specific(frame)
        for test, expected in guards:
            if not specific:
                # Called from anywhere, only what holds for every caller is decided: the
                # torch version the module runs with.
                actual = self.version_truth(test, frame)
            else:
                key = (id(test), frame.key)
                if key in self._truths:
                    actual = self._truths[key]
                else:
                    actual = self._truths[key] = self.truth(test, frame)
            if actual is not None and actual != expected:
                return False
        return True

    def version_truth(self, test: Value, frame: Frame) -> Optional[bool]:
        """The outcome of a torch-version test (the same in every frame of a module)."""
        if isinstance(test, Not):
            inner = self.version_truth(test.value, frame)
            return None if inner is None else not inner
        if not isinstance(test, Compare) or self.torch_range_for is None:
            return None
        return torch_version_truth(test, lambda: self.torch_range_for(frame.module.path))

    def narrowed(self, values: Values, expression: Optional[Value], guards: Sequence[Guard], frame: Frame) -> Values:
        """``values`` of ``expression`` less those an ``isinstance(expression, T)`` guard
        around its use rules out (``if isinstance(dataset, IterableDataset): ...``)."""
        if not isinstance(expression, Name):
            return values
        for test, expected in guards:
            if not (isinstance(test, Call) and isinstance(test.func, Name) and test.func.dotted == "isinstance"
                    and len(test.args) == 2 and isinstance(test.args[0], Name) and test.args[0].dotted == expression.dotted):
                continue
            kinds = self.eval(test.args[1], frame)
            tuples = frozenset(k for k in kinds if isinstance(k, SeqObj))
            kinds = (self.elements(tuples) if tuples else NOTHING) | (kinds - tuples)
            values = frozenset(v for v in values if self._is_instance(v, kinds) in (expected, None))
        return values

    def _is_instance(self, value: Obj, kinds: Values) -> Optional[bool]:
        """Whether ``isinstance(value, kinds)`` holds: None when it cannot be told."""
        if not kinds or any(not isinstance(k, (External, ClassObj)) for k in kinds):
            return None
        if isinstance(value, Instance):
            chain = self.index.mro(value.cls)
            external = self.index.external_bases(value.cls)
            for kind in kinds:
                if isinstance(kind, ClassObj) and any(item.key == kind.cls.key for item in chain):
                    return True
                if isinstance(kind, External) and any(_same_library_class(base, kind.qualified) for base in external):
                    return True
            resolved = all(len(list(self.index.bases(item))) == len(item.cls.bases) for item in chain)
            if not resolved:
                return None
            library_kinds = [k.qualified for k in kinds if isinstance(k, External)]
            if library_kinds and not all(_excludes(base, library_kinds) for base in external):
                return None  # a library base may itself derive from the class tested
            return False
        if isinstance(value, ExternalInstance):
            if any(isinstance(k, External) and _same_library_class(value.qualified, k.qualified) for k in kinds):
                return True
            return None
        if isinstance(value, Constant) and value.value is not None:
            builtin = type(value.value).__name__
            names = {k.qualified.rsplit(".", 1)[-1] for k in kinds if isinstance(k, External) and k.qualified.startswith("builtins.")}
            if names:
                return builtin in names or (builtin == "bool" and "int" in names)
        return None

    def filtered_out(self, guards: Sequence[Guard], datasets: Sequence[Obj], frame: Frame) -> bool:
        """Code under ``if isinstance(<...>.dataset, K):`` (a ``worker_init_fn`` that reaches
        ``get_worker_info().dataset``) does not run for a loader whose datasets are all
        certainly not ``K`` (or, in the ``else`` branch, all certainly ``K``)."""
        if not datasets:
            return False
        for test, holds in guards:
            if not (isinstance(test, Call) and isinstance(test.func, Name) and test.func.qualified == "builtins.isinstance"):
                continue
            if len(test.args) != 2 or not _names_dataset(test.args[0]):
                continue
            kinds = self.eval(test.args[1], frame)
            kinds = union(self.elements(frozenset({k})) if isinstance(k, SeqObj) else frozenset({k}) for k in kinds)
            answers = {self._is_instance(dataset, kinds) for dataset in datasets}
            if answers == {not holds}:
                return True
        return False


def _excludes(base: str, kinds: Sequence[str]) -> bool:
    """Whether library class ``base`` is certainly none of ``kinds`` nor derived from one."""
    above = ancestry(base)
    if above is None or "builtins.object" in kinds:
        return False
    return not any(_same_library_class(k, c) for k in kinds for c in (base, *above))


def _string_method_call(value: Value):
    """(receiver, method) of ``x.lower()`` and the like on a name or attribute chain, else (None, "")."""
    if not isinstance(value, Call) or value.args or value.kwargs:
        return None, ""
    func = value.func
    if isinstance(func, Attr) and func.attr in STRING_METHODS and _simple(func.value):
        return func.value, func.attr
    if isinstance(func, Name) and "." in func.dotted:
        prefix, _, method = func.dotted.rpartition(".")
        if method in STRING_METHODS:
            qualified = func.qualified.rpartition(".")[0] if func.qualified else None
            return Name(dotted=prefix, span=func.span, qualified=qualified, scope=func.scope), method
    return None, ""
