"""The value flow: which objects an expression may evaluate to, across the project.

``ValueFlow.eval(value, frame)`` answers "which project classes, functions, instances,
constants, dicts, sequences or library objects may this be" for an expression of the
module facts, evaluated in a frame. ``eval`` is the one front; each family of binding
forms lives in its own module, as a mixin of ``ValueFlow``:

- ``frames``: the frames expressions are evaluated in (call sites, receivers, ``__init__``);
- ``names``: names to the assignments that reach them (the other arm of an ``if`` and
  blocks ending in ``return`` do not), tuple and loop targets, module members, star
  imports, ``global``;
- ``parameters``: parameters to the arguments call sites pass (``*args``/``**kwargs``,
  ``functools.partial`` chains), or to what every caller passes (``callsites.py``);
- ``calls``: project functions and classes, library callables the flow sees through;
- ``dynamic``: ``type(...)``, ``getattr``, ``eval``, ``globals()`` look-ups;
- ``attributes``: instance and class attributes, dataclass fields, library base classes,
  argparse defaults;
- ``containers``: dicts, sequences, subscripts, iteration;
- ``truth``: tests, guards and ``isinstance`` narrowing;
- ``questions``: what rules ask (callees, their frames, callables held).

The table of binding forms and their fixtures is ``docs/value-flow.md``. Answers are sets
of ``objects.Obj``; ``UNKNOWN`` in a set means "and possibly something else". Every
answer is memoised for the run. The bounds are named once, in ``shared`` and in
``objects.MAX_CONTEXT``, and a run under ``SEEDLINT_TIMINGS`` counts the times each cut.
"""

from __future__ import annotations

from typing import Dict, FrozenSet, List, Optional, Set, Tuple

from seedlint import timing
from seedlint.analysis.index import (
    ClassRef,
    ExternalRef,
    FunctionRef,
    ProjectIndex,
)
from seedlint.analysis.objects import (
    NOTHING,
    UNKNOWN_SET,
    ClassObj,
    ConfiguredConstant,
    Constant,
    DictObj,
    Entry,
    External,
    Frame,
    FunctionObj,
    SeqObj,
    Values,
    hashable,
    reset_keys,
)
from seedlint.facts.model import (
    MODULE_CODE,
    Attr,
    BinOp,
    BoolOp,
    Call,
    Compare,
    Comprehension,
    ConfigConst,
    Const,
    DictDisplay,
    Each,
    Function,
    Guard,
    IfExp,
    Lambda,
    ModuleFacts,
    Name,
    Not,
    Seq,
    Subscript,
    Value,
)
from seedlint.analysis.flow.frames import FramesMixin
from seedlint.analysis.flow.names import NamesMixin
from seedlint.analysis.flow.parameters import ParametersMixin
from seedlint.analysis.flow.calls import CallsMixin
from seedlint.analysis.flow.dynamic import DynamicMixin
from seedlint.analysis.flow.attributes import AttributesMixin
from seedlint.analysis.flow.config_nodes import ConfigNodesMixin
from seedlint.analysis.flow.containers import ContainersMixin
from seedlint.analysis.flow.truth import TruthMixin
from seedlint.analysis.flow.process_groups import ProcessGroupMixin
from seedlint.analysis.flow.questions import QuestionsMixin
from seedlint.analysis.flow.shared import (
    _specific,
    _truth_of,
    union,
    MAX_EVAL_DEPTH,
)

__all__ = ["ValueFlow", "union"]

MAX_STATIC_KEYS = 32
"""Constant keys one item assignment is told apart by; more, and it may write any key."""
MAX_EVALUATIONS = 60_000
"""Fresh evaluations one outermost question may cause (the panel's largest need about
20,000, diffusers'); beyond it the rest is unknown and ``SEEDLINT_TIMINGS`` says so."""


class ValueFlow(FramesMixin, NamesMixin, ParametersMixin, CallsMixin, DynamicMixin, AttributesMixin, ConfigNodesMixin, ContainersMixin, TruthMixin, ProcessGroupMixin, QuestionsMixin):
    def __init__(self, index: ProjectIndex, files=None) -> None:
        from seedlint.analysis.callsites import CallSites
        from seedlint.analysis.registries import Registries

        reset_keys()
        self.index = index
        self.files = files
        self.documented_commands = None
        self.given_names = None
        """``analysis.name_mentions.GivenNames`` of the project, when known."""
        self._importers_memo: Dict[str, Set[str]] = {}
        self._scripts_memo: Dict[Tuple[str, str], FrozenSet[str]] = {}
        index.base_resolver = self._resolve_base
        self.callsites = CallSites(self)
        self.registries = Registries(self)
        self._frames: Dict[tuple, object] = {}  # a Frame, or for a base __init__ the list of them
        self._eval: Dict[tuple, Values] = {}
        self._pinned: List[object] = []
        """Every expression ``_eval`` has a key for: keys hold ``id()``s, and an expression built
        for one question (a receiver ``Name`` split off a call) must not be freed and its id
        reused by another while its result is remembered."""
        self._attributes: Dict[tuple, Values] = {}
        self._params: Dict[tuple, Values] = {}
        self._globals: Dict[tuple, Values] = {}
        self._mutations: Dict[tuple, List[Tuple[Call, bool]]] = {}
        self._outside: Dict[str, list] = {}
        self._assigned_attributes: Dict[str, list] = {}
        self._writers: Dict[str, Dict[str, List[Function]]] = {}
        self._guards_at: Dict[tuple, Optional[Tuple[Guard, ...]]] = {}
        self._truths: Dict[tuple, Optional[bool]] = {}
        self._bindings: Dict[int, tuple] = {}
        self._configurations: Dict[tuple, Optional[Value]] = {}
        self._instantiated: Dict[tuple, Call] = {}
        self._files: Dict[object, Optional[Value]] = {}
        self._code_values: Dict[tuple, Optional[Value]] = {}
        self._subclass_lists: Dict[tuple, object] = {}
        self._config_candidates: Dict[Optional[str], List[str]] = {}
        self._config_modules: Dict[str, object] = {}
        self._parsers: Dict[str, List[Tuple[ModuleFacts, Function, Call]]] = {}
        self._scanned: Dict[str, Set[str]] = {}
        self._stored_keys: Set[object] = set()
        self._node_merges: Dict[tuple, List[Tuple[Value, Frame]]] = {}
        """``config_nodes``: the file merges into each yacs root node."""
        """Keys some analysed code stores into a dict or sets as an attribute."""
        self._depth = 0
        self._spent = 0
        """Expressions evaluated afresh for the outermost question being answered."""
        self.torch_range_for = None
        """``path -> VersionRange``: the torch versions a module runs with (set by the project)."""

    def _resolve_base(self, cls: ClassRef, base: Value) -> List:
        """A class's base that names alone do not resolve, evaluated where the class is
        defined: ``class Stream(base)`` inside ``def make(base)``, ``class A(REG[key])``."""
        qualname = cls.cls.qualname
        owner = qualname.rsplit(".<locals>.", 1)[0] if ".<locals>." in qualname else MODULE_CODE
        function = cls.module.functions.get(owner)
        if function is None:
            return []
        frame = self.function_frame(cls.module, function)
        found = []
        for obj in self.eval(base, frame):
            if isinstance(obj, ClassObj) and obj.cls.key != cls.key:
                found.append(obj.cls)
            elif isinstance(obj, External):
                found.append(ExternalRef(obj.qualified))
        # Alternatives in source order, whatever order the set of values iterates in.
        return sorted(found, key=lambda ref: (0, ref.module.path, ref.cls.span.line) if isinstance(ref, ClassRef) else (1, ref.qualified, 0))

    def eval(self, value: Optional[Value], frame: Frame) -> Values:
        if value is None:
            return UNKNOWN_SET
        key = (id(value), frame.key)
        found = self._eval.get(key)
        if found is not None:
            return found
        if self._depth > MAX_EVAL_DEPTH:
            timing.limit_hit("evaluation depth")
            return UNKNOWN_SET
        if self._depth == 0:
            self._spent = 0
        self._spent += 1
        if self._spent > MAX_EVALUATIONS:
            # Pathological code only (a recursive parser threading one dict through every
            # call): the question's remaining values are unknown, and stay so.
            timing.limit_hit("evaluations per question")
            self._eval[key] = UNKNOWN_SET
            return UNKNOWN_SET
        self._eval[key] = NOTHING  # a cycle sees nothing more than what the other paths give
        self._pinned.append(value)
        self._depth += 1
        try:
            found = self._evaluate(value, frame)
        finally:
            self._depth -= 1
        self._eval[key] = found
        return found

    def _evaluate(self, value: Value, frame: Frame) -> Values:
        if isinstance(value, ConfigConst) and value.place[0]:
            return frozenset({ConfiguredConstant(value.value, value.place)})
        if isinstance(value, Const):
            return frozenset({Constant(value.value)})
        if isinstance(value, Name):
            return self._name(value, frame)
        if isinstance(value, Call):
            return self._call(value, frame)
        if isinstance(value, Attr):
            return self.attribute(self.eval(value.value, frame), value.attr)
        if isinstance(value, Subscript):
            return self.item(self.eval(value.value, frame), value.index, frame)
        if isinstance(value, Each):
            return self.elements(self.eval(value.iterable, frame))
        if isinstance(value, Seq):
            return frozenset({SeqObj(Entry(item, frame) for item in value.items)})
        if isinstance(value, DictDisplay):
            entries = [Entry(v, frame, self._static_key(k, frame)) for k, v in zip(value.keys, value.values)]
            entries += [Entry(star, frame, Entry.ANY, spread=True) for star in value.stars]
            return frozenset({DictObj(entries, attributes=value.attributes)})
        if isinstance(value, IfExp):
            truth = self.truth(value.test, frame) if value.test is not None and _specific(frame) else None
            if truth is True:
                return self.eval(value.body, frame)
            if truth is False:
                return self.eval(value.orelse, frame)
            return self.eval(value.body, frame) | self.eval(value.orelse, frame)
        if isinstance(value, Lambda):
            function = frame.module.functions.get(value.qualname)
            return frozenset({FunctionObj(FunctionRef(frame.module, function))}) if function is not None else UNKNOWN_SET
        if isinstance(value, BinOp):
            return self._binop(value, frame)
        if isinstance(value, Comprehension):
            return frozenset({SeqObj([Entry(value.element, frame)], indexable=False)})
        if isinstance(value, BoolOp):
            return self._boolop(value, frame)
        if isinstance(value, (Compare, Not)):
            truth = self.truth(value, frame)
            return frozenset({Constant(truth)}) if truth is not None else UNKNOWN_SET
        return UNKNOWN_SET

    def _boolop(self, value: BoolOp, frame: Frame) -> Values:
        """``a and b`` is ``a`` when ``a`` is falsy, else ``b``; ``a or b`` the other way."""
        found: List[Values] = []
        for operand in value.values:
            values = self.eval(operand, frame)
            truths = {_truth_of(v) for v in values}
            stops = False if value.op == "and" else True
            if truths == {stops}:
                found.append(values)
                return union(found)
            if truths == {not stops}:
                continue
            found.append(frozenset(v for v in values if _truth_of(v) != (not stops)))
        found.append(self.eval(value.values[-1], frame))
        return union(found)

    def _static_key(self, key: Value, frame: Frame) -> object:
        constant = self.constant(key, frame)
        return constant.value if constant is not None else Entry.ANY

    def _static_keys(self, key: Value, frame: Frame) -> List[object]:
        """The keys an item assignment may write: each constant the key may be
        (``config["%s_root" % name]`` over a loop of names), else ``Entry.ANY``."""
        if isinstance(key, Const):
            return [key.value]
        values = self.eval(key, frame)
        if values and len(values) <= MAX_STATIC_KEYS and all(isinstance(v, Constant) and hashable(v.value) for v in values):
            return sorted((v.value for v in values), key=repr)
        return [Entry.ANY]

    def constant(self, value: Value, frame: Frame) -> Optional[Constant]:
        """The constant ``value`` certainly is, if any."""
        if isinstance(value, Const):
            return Constant(value.value)
        values = self.eval(value, frame)
        if len(values) == 1:
            only = next(iter(values))
            if isinstance(only, Constant):
                return only
        # The same constant from several places (an option's default and its one choice).
        if values and all(isinstance(v, Constant) for v in values):
            same = {(type(v.value), v.value) if hashable(v.value) else (type(v.value), repr(v.value)) for v in values}
            if len(same) == 1:
                return min(values, key=lambda v: (type(v) is not Constant, repr(v.key)))
        return None
