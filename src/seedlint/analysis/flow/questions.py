"""The questions rules and analyses ask of the flow: what a call may run, in which frames,
which callables a call holds (passed or stored), what calling an object runs.
"""

from __future__ import annotations

from typing import List, Set, Tuple

from seedlint import timing
from seedlint.analysis import library
from seedlint.analysis.objects import (
    NOTHING,
    ClassObj,
    DictObj,
    External,
    ExternalInstance,
    Frame,
    FunctionObj,
    Instance,
    Obj,
    SeqObj,
    Site,
    Values,
    ordered,
)
from seedlint.facts.model import (
    MODULE_CODE,
    Attr,
    Call,
    Name,
    Value,
)
from seedlint.knowledge.hf_datasets import TRANSFORM_SETTING, from_hf_datasets
from seedlint.knowledge.kept_callables import keeps_callables
from seedlint.knowledge.global_draws import may_draw_when_called
from seedlint.analysis.flow.shared import (
    union,
    LIST_MUTATORS,
)


MAX_NESTING = 12
"""Lists and library wrappers one callable may sit inside (``[Compose([Compose([Blur()])])]``
is four): a guard against pathological nesting, never reached by ordinary pipelines."""


class QuestionsMixin:
    def callee_names(self, call: Call, frame: Frame) -> Set[str]:
        """Qualified names of the library callables a call may invoke."""
        return {o.qualified for o in self.eval(call.func, frame) if isinstance(o, External)}

    def callee_objects(self, call: Call, frame: Frame) -> Values:
        func = call.func
        if isinstance(func, Attr) and isinstance(func.value, Call) and self._is_super_call(func.value, frame):
            return self.attribute(self._super(frame), func.attr)
        return self.eval(func, frame)

    def resolved_without_loading(self, call: Call) -> bool:
        """Whether the callee is a local name, a method on an object, or a name into a
        project module already analysed: following it reads no further file."""
        func = call.func
        if not isinstance(func, Name) or func.qualified is None:
            return True
        parts = func.qualified.split(".")
        if parts[0] in library.KNOWN_LIBRARIES or parts[0] == "builtins":
            return False
        return any(self.index.module_named(".".join(parts[:cut]), load=False) is not None for cut in range(len(parts), 0, -1))

    def callee_frames(self, call: Call, frame: Frame) -> List[Tuple[Frame, FunctionObj]]:
        """The frames of the project functions a call runs: functions, bound methods,
        ``__init__`` of a class it constructs, ``__call__`` of an object it calls."""
        found: List[Tuple[Frame, FunctionObj]] = []
        site = Site(frame, call)
        for obj in ordered(self.callee_objects(call, frame)):
            if isinstance(obj, FunctionObj):
                found.append((self.callee_frame(obj, site), obj))
            elif isinstance(obj, ClassObj):
                init = self.index.method(obj.cls, "__init__")
                if init is not None:
                    instance = Instance(obj.cls, site)
                    target = FunctionObj(init, instance)
                    found.append((self.callee_frame(target, site), target))
            elif isinstance(obj, Instance):
                method = self.index.method(obj.cls, "__call__")
                if method is not None:
                    target = FunctionObj(method, obj)
                    found.append((self.callee_frame(target, site), target))
        return found

    def held_callables(self, call: Call, frame: Frame, depth: int = 0) -> Values:
        """Project callables passed into a library call, which the library may call
        (``Compose([RandomCrop(224), flip])``, ``map(self.load, paths)``), also inside
        library objects passed along (a ``Compose`` inside a ``RandomApply``), and the library
        objects among them that draw from a global RNG when called (``RandomCrop(224)``)."""
        key = ("held", id(call), frame.key)
        found = self._eval.get(key)
        if found is not None:
            return found
        self._eval[key] = NOTHING
        self._pinned.append(call)
        collected: List[Values] = []
        for value in (*call.args, *(v for _, v in call.kwargs), *call.stars, *call.double_stars):
            collected.append(self._callables_within(self.eval(value, frame), depth))
        for value, spread in self._added_later(call, frame):
            values = self.eval(value, frame)
            collected.append(self._callables_within(self.elements(values) if spread else values, depth))
        found = self._eval[key] = union(collected)
        return found

    def callables_held_by(self, obj: Obj) -> List[FunctionObj]:
        """The functions an object carries with it when it is pickled: what its methods store
        on ``self`` (directly, or inside library objects that keep them, such as a
        ``Compose``: ``knowledge.kept_callables``), and, for such a library object
        (``ImageFolder(root, transform=...)``), what it was given. Methods bound to the object
        itself are left out (they pickle with it)."""
        holders: List[ExternalInstance] = []
        found: Set[Obj] = set()
        if isinstance(obj, ExternalInstance) and keeps_callables(obj.qualified):
            holders.append(obj)
        elif isinstance(obj, Instance):
            for name in sorted(self.instance_attribute_names(obj, with_class_body=False)):
                for value in ordered(self.attribute_of(obj, name)):
                    if isinstance(value, FunctionObj) and value.receiver is None:
                        found.add(value)
                    elif isinstance(value, ExternalInstance) and keeps_callables(value.qualified):
                        holders.append(value)
        for holder in holders:
            found |= {v for v in self.held_callables(holder.site.call, holder.site.frame) if isinstance(v, FunctionObj) and v.receiver is None}
        return [v for v in ordered(frozenset(found)) if isinstance(v, FunctionObj)]

    def _added_later(self, call: Call, frame: Frame) -> List[Tuple[Value, bool]]:
        """What the function adds to a list the built object holds, after building it:
        ``pipeline = Compose([...])`` then ``pipeline.transforms.append(Cutout(16))``; or the
        transform it gives a Hugging Face dataset in place (``dataset.set_transform(f)``)."""
        function = frame.function.function
        names = [a.target for a in function.assigns if a.value is call and "." not in a.target]
        hf_dataset = isinstance(call.func, Name) and call.func.qualified is not None and from_hf_datasets(call.func.qualified)
        found: List[Tuple[Value, bool]] = []
        for name in names:
            for held in function.calls:
                func = held.func
                if not (isinstance(func, Name) and func.dotted.startswith(name + ".")):
                    continue
                if func.qualified is not None and function.qualname != MODULE_CODE:
                    continue  # a global of the same name, not the local built here
                parts = func.dotted.split(".")
                if hf_dataset and len(parts) == 2 and parts[1] in TRANSFORM_SETTING:
                    argument = held.argument("transform", 0)
                    if argument is not None and self.guards_may_hold(held.guards, frame):
                        found.append((argument, False))
                    continue
                if len(parts) != 3 or parts[2] not in LIST_MUTATORS or not held.args:
                    continue
                if self.guards_may_hold(held.guards, frame):
                    found.append((held.args[-1], LIST_MUTATORS[parts[2]]))
        return found

    def _callables_within(self, values: Values, depth: int) -> Values:
        found: Set[Obj] = set()
        if depth > MAX_NESTING:
            timing.limit_hit("callables nesting")
            return NOTHING
        for obj in values:
            if isinstance(obj, (FunctionObj, Instance)):
                found.add(obj)
            elif isinstance(obj, (SeqObj, DictObj)):
                # A container is read once, however many paths reach it (a model's layer lists
                # share their sub-lists): without this, nested structures cost exponential time.
                key = ("within", obj.key)
                known = self._eval.get(key)
                if known is None:
                    self._eval[key] = NOTHING
                    inner_found: Set[Obj] = set()
                    entries = obj.entries if isinstance(obj, SeqObj) else self.dict_entries(obj)
                    for entry in entries:
                        inner = self.eval(entry.value, entry.frame)
                        inner_found |= self._callables_within(self.elements(inner) if entry.spread else inner, depth + 1)
                    known = self._eval[key] = frozenset(inner_found)
                found |= known
            elif isinstance(obj, ExternalInstance):
                if may_draw_when_called(obj.qualified):
                    found.add(obj)  # a library transform that draws when the pipeline calls it
                found |= self.held_callables(obj.site.call, obj.site.frame, depth + 1)
        return frozenset(found)

    def as_called(self, values: Values) -> Values:
        """What calling each of ``values`` runs: a project object's ``__call__`` method
        (bound to it) in place of the object."""
        changed = []
        for value in values:
            method = self.index.method(value.cls, "__call__") if isinstance(value, Instance) else None
            changed.append(FunctionObj(method, value) if method is not None else value)
        return frozenset(changed)

    def instances_of(self, values: Values) -> List[Instance]:
        return [v for v in values if isinstance(v, Instance)]
