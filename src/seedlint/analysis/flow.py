"""The value flow: which objects an expression may evaluate to, across the project.

``ValueFlow.eval(value, frame)`` answers "which project classes, functions, instances,
constants, dicts, sequences or library objects may this be" for an expression of the
module facts, evaluated in a frame. It follows:

- names to their assignments (flow-insensitive: every assignment in the function, minus
  those whose ``if`` guards cannot hold in the frame), loop variables to the elements of
  what the loop iterates, and lists to what ``append``/``extend`` add;
- parameters to the argument the frame's call site passes (positional, keyword,
  ``*args``/``**kwargs``, ``functools.partial``), or, with no call site, to what every
  caller in the project passes (``callsites.py``), or to the default;
- return values and ``yield``s of project functions, in a frame for that call;
- attributes of instances to every ``self.x = ...`` in the class's MRO (the construction
  call binds ``__init__``'s parameters), class attributes, properties, and assignments
  made from outside (``obj.x = v``);
- dict and sequence displays, subscripts, ``**kwargs`` dicts, registries (``registries.py``),
  ``getattr``, ``importlib.import_module``, ``eval``/``globals()``, ``type(...)``.

Answers are sets of ``objects.Obj``; ``UNKNOWN`` in a set means "and possibly something
else". Every answer is memoised for the run. The bounds are named once, here and in
``objects.MAX_CONTEXT``.
"""

from __future__ import annotations

from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from seedlint import timing
from seedlint.analysis import library
from seedlint.analysis.index import ClassRef, ExternalRef, FunctionRef, ProjectIndex, exported
from seedlint.knowledge.global_draws import UNIT_INTERVAL_DRAWS
from seedlint.analysis.objects import (
    COMMAND_LINE,
    MAX_CONTEXT,
    NONE,
    NOTHING,
    UNKNOWN,
    UNKNOWN_SET,
    ArgsObj,
    ClassObj,
    Constant,
    DictObj,
    Entry,
    External,
    ExternalInstance,
    Frame,
    FunctionObj,
    HParams,
    Instance,
    MethodOf,
    ModuleObj,
    Obj,
    SeqObj,
    Site,
    SuperObj,
    Values,
    ordered,
    reset_keys,
)
from seedlint.facts.model import (
    MODULE_CODE,
    Attr,
    BinOp,
    BoolOp,
    Call,
    Class,
    Compare,
    Comprehension,
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
    Span,
    Subscript,
    Value,
)

MAX_EVAL_DEPTH = 48
"""Nested evaluations before an answer is given up as UNKNOWN."""
MAX_VALUES = 256
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


class ValueFlow:
    def __init__(self, index: ProjectIndex, files=None) -> None:
        from seedlint.analysis.callsites import CallSites
        from seedlint.analysis.registries import Registries

        reset_keys()
        self.index = index
        self.files = files
        index.base_resolver = self._resolve_base
        self.callsites = CallSites(self)
        self.registries = Registries(self)
        self._frames: Dict[tuple, Frame] = {}
        self._eval: Dict[tuple, Values] = {}
        self._attributes: Dict[tuple, Values] = {}
        self._params: Dict[tuple, Values] = {}
        self._globals: Dict[tuple, Values] = {}
        self._mutations: Dict[tuple, List[Tuple[Call, bool]]] = {}
        self._outside: Dict[str, list] = {}
        self._writers: Dict[str, Dict[str, List[Function]]] = {}
        self._guards_at: Dict[tuple, Optional[Tuple[Guard, ...]]] = {}
        self._parsers: Dict[str, List[Tuple[ModuleFacts, Function, Call]]] = {}
        self._scanned: Dict[str, Set[str]] = {}
        self._depth = 0

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

    # ================================================================== frames
    def frame(self, function: FunctionRef, receiver: Optional[Obj] = None, site: Optional[Site] = None) -> Frame:
        if site is not None and site.frame.depth >= MAX_CONTEXT:
            timing.limit_hit("call context depth")
            site = None
        if isinstance(receiver, Instance) and receiver.site is not None and receiver.site.frame.depth >= MAX_CONTEXT:
            receiver = Instance(receiver.cls, None, receiver.via or (receiver.site.frame.module, receiver.site.call))
        key = (function.key, receiver.key if receiver is not None else None, site.key if site is not None else None)
        found = self._frames.get(key)
        if found is None:
            found = self._frames[key] = Frame(function, receiver, site)
        return found

    def module_frame(self, module: ModuleFacts) -> Frame:
        return self.frame(FunctionRef(module, module.module_code))

    def function_frame(self, module: ModuleFacts, function: Function) -> Frame:
        """The frame of a function called from anywhere."""
        return self.frame(FunctionRef(module, function))

    def method_frame(self, method: FunctionRef, instance: Obj) -> Frame:
        """The frame a method runs in for ``instance``: the class's ``__init__`` with the
        construction's arguments, a base class's ``__init__`` with what the subclass's
        ``super().__init__(...)`` passes, any other method with whatever its callers pass."""
        if not isinstance(instance, Instance) or method.function.name != "__init__" or instance.site is None:
            return self.frame(method, instance)
        key = ("init-frame", method.key, instance.key)
        found = self._frames.get(key)
        if found is None:
            self._frames[key] = self.frame(method, instance)
            found = self._frames[key] = self._init_frame(method, instance)
        return found

    def _init_frame(self, method: FunctionRef, instance: Instance) -> Frame:
        tops = self.index.constructors(instance.cls)
        site = instance.site
        if not tops or any(top.key == method.key for top in tops):
            return self.frame(method, instance, Site(site.frame, site.call, 1, site.prefix))
        for item in self.index.mro(instance.cls):
            qualname = item.cls.methods.get("__init__")
            if qualname is None:
                continue
            caller = FunctionRef(item.module, item.module.functions[qualname])
            if caller.key == method.key:
                continue
            caller_frame = self.method_frame(caller, instance)
            for call in caller.function.calls:
                if _spelled(call.func) != "__init__":
                    continue
                for obj in self.callee_objects(call, caller_frame):
                    if isinstance(obj, FunctionObj) and obj.function.key == method.key:
                        offset = 1 if obj.receiver is not None else 0
                        return self.frame(method, instance, Site(caller_frame, call, offset))
        return self.frame(method, instance)

    # ================================================================== evaluation
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
        self._eval[key] = NOTHING  # a cycle sees nothing more than what the other paths give
        self._depth += 1
        try:
            found = self._evaluate(value, frame)
        finally:
            self._depth -= 1
        self._eval[key] = found
        return found

    def _evaluate(self, value: Value, frame: Frame) -> Values:
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
            return frozenset({DictObj(entries)})
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

    def constant(self, value: Value, frame: Frame) -> Optional[Constant]:
        """The constant ``value`` certainly is, if any."""
        if isinstance(value, Const):
            return Constant(value.value)
        values = self.eval(value, frame)
        if len(values) == 1:
            only = next(iter(values))
            if isinstance(only, Constant):
                return only
        return None

    # ------------------------------------------------------------------ names
    def _name(self, name: Name, frame: Frame) -> Values:
        if name.qualified is not None:
            return self.global_name(name.qualified, frame.module)
        module = frame.module
        if name.scope != frame.function.function.qualname:
            scope = module.functions.get(name.scope)
            if scope is None:
                return UNKNOWN_SET
            frame = self._enclosing_frame(frame, scope)
        values = self._local(name.root, frame, name.span)
        for part in name.rest.split(".") if name.rest else ():
            values = self.attribute(values, part)
        return values

    def _enclosing_frame(self, frame: Frame, scope: Function) -> Frame:
        """A closure reads its enclosing function's locals: in that function's own frame
        when the closure was made there (a lambda defined in the frame's function), else
        from any call."""
        return self.function_frame(frame.module, scope)

    def _local(self, root: str, frame: Frame, read: Optional[Span] = None) -> Values:
        function = frame.function.function
        module = frame.module
        found: List[Values] = []
        assigns = [a for a in function.assigns if a.target == root and self.guards_may_hold(a.guards, frame)]
        killed = False
        if read is not None:
            assigns, killed = _reaching(function, assigns, read, self._read_guards(function, read))
        if root in function.params and not killed:
            found.append(self.param(frame, root))
        for assign in assigns:
            found.append(self.eval(assign.value, frame))
        for loop in function.loops:
            if loop.target == root:
                found.append(self.elements(self.eval(loop.iterable, frame)))
        nested = module.functions.get(f"{function.qualname}.<locals>.{root}") if function.qualname != MODULE_CODE else None
        if nested is not None:
            found.append(frozenset({FunctionObj(FunctionRef(module, nested))}))
        local_class = module.classes.get(f"{function.qualname}.<locals>.{root}") if function.qualname != MODULE_CODE else None
        if local_class is not None:
            found.append(frozenset({ClassObj(ClassRef(module, local_class))}))
        if function.qualname == MODULE_CODE:
            return self.global_name(f"{module.name}.{root}" if module.name else root, module)
        values = union(found) if found else UNKNOWN_SET
        return self._with_mutations(values, function, root, frame)

    def _read_guards(self, function: Function, read: Span) -> Optional[Tuple[Guard, ...]]:
        """The ``if`` guards a read runs under: those of the innermost call around it (the
        loader call that passes the name), None when no call encloses it."""
        key = (id(function), read.line, read.col)
        if key in self._guards_at:
            return self._guards_at[key]
        best: Optional[Call] = None
        for call in function.calls:
            if _inside(call.span, read) and (best is None or _inside(best.span, call.span)):
                best = call
        found = self._guards_at[key] = best.guards if best is not None else None
        return found

    def _with_mutations(self, values: Values, function: Function, dotted: str, frame: Frame) -> Values:
        """A list or dict that ``dotted.append(x)`` / ``dotted.update(...)`` calls in
        ``function`` add to: their arguments join its entries."""
        if not any(isinstance(v, (SeqObj, DictObj)) for v in values):
            return values
        mutations = self._mutation_calls(frame.module, function, dotted)
        stored = [
            Entry(item.value, frame, self._static_key(item.key, frame)) for item in function.item_assigns
            if isinstance(item.container, Name) and item.container.qualified is None and item.container.dotted == dotted
            and self.guards_may_hold(item.guards, frame)
        ]
        if not mutations and not stored:
            return values
        changed: Set[Obj] = set()
        for obj in values:
            if isinstance(obj, SeqObj):
                extra = [Entry(call.args[-1], frame, spread=spread) for call, spread in mutations if call.args and not _is_dict_mutator(call)]
                changed.add(SeqObj(obj.entries + tuple(extra), obj.open, indexable=False))
            elif isinstance(obj, DictObj):
                extra = []
                for call, _ in mutations:
                    if not _is_dict_mutator(call):
                        continue
                    extra += [Entry(v, frame, key) for key, v in call.kwargs]
                    extra += [Entry(a, frame, Entry.ANY, spread=True) for a in call.args[:1] if _spelled_last(call) == "update"]
                changed.add(DictObj(obj.entries + tuple(extra) + tuple(stored), obj.open, obj.origin))
            else:
                changed.add(obj)
        return frozenset(changed)

    def _mutation_calls(self, module: ModuleFacts, function: Function, dotted: str) -> List[Tuple[Call, bool]]:
        key = (module.path, function.qualname, dotted)
        found = self._mutations.get(key)
        if found is None:
            found = []
            for call in function.calls:
                func = call.func
                if isinstance(func, Name) and func.qualified is None and func.dotted.rpartition(".")[0] == dotted:
                    method = func.dotted.rpartition(".")[2]
                    if method in LIST_MUTATORS or method in DICT_MUTATORS:
                        found.append((call, LIST_MUTATORS.get(method, False)))
            self._mutations[key] = found
        return found

    def global_name(self, qualified: str, near: ModuleFacts) -> Values:
        """What a fully qualified name stands for: a project module's member, or a library object."""
        key = (qualified, near.path)
        found = self._globals.get(key)
        if found is not None:
            return found
        self._globals[key] = UNKNOWN_SET
        found = self._resolve_global(qualified, near)
        self._globals[key] = found
        return found

    def _resolve_global(self, qualified: str, near: ModuleFacts) -> Values:
        if qualified.startswith("builtins."):
            return frozenset({External(qualified[len("builtins."):])})
        parts = qualified.split(".")
        if library.owns(parts[0], near.name or ""):
            return frozenset({External(qualified)})
        for cut in range(len(parts), 0, -1):
            module = self.index.module_named(".".join(parts[:cut]), near)
            if module is not None:
                values: Values = frozenset({ModuleObj(module)})
                for part in parts[cut:]:
                    values = self.attribute(values, part)
                return values
        return frozenset({External(qualified)})

    def module_member(self, module: ModuleFacts, name: str) -> Values:
        key = ("member", module.path, name)
        found = self._attributes.get(key)
        if found is not None:
            return found
        self._attributes[key] = UNKNOWN_SET
        found = self._module_member(module, name)
        self._attributes[key] = found
        return found

    def _module_member(self, module: ModuleFacts, name: str) -> Values:
        if name in module.imports:
            return self.global_name(module.imports[name], module)
        if name in module.classes:
            return frozenset({ClassObj(ClassRef(module, module.classes[name]))})
        if name in module.functions and name != MODULE_CODE:
            return frozenset({FunctionObj(FunctionRef(module, module.functions[name]))})
        if module.toplevel.get(name) == "assign":
            frame = self.module_frame(module)
            found = [self.eval(a.value, frame) for a in module.module_code.assigns if a.target == name]
            for writer in self._global_writers(module).get(name, ()):
                writer_frame = self.function_frame(module, writer)
                found += [self.eval(a.value, writer_frame) for a in writer.assigns if a.target == name]
            values = union(found) if found else UNKNOWN_SET
            values = self._with_mutations(values, module.module_code, name, frame)
            return frozenset(v.with_origin((module.path, name)) if isinstance(v, DictObj) else v for v in values)
        for star in module.star_imports:
            target = self.index.module_named(star, module)
            if target is not None and target is not module and exported(target, name):
                found = self.module_member(target, name)
                if found != UNKNOWN_SET:
                    return found
        if module.name:
            sub = self.index.module_named(f"{module.name}.{name}", module)
            if sub is not None:
                return frozenset({ModuleObj(sub)})
        return UNKNOWN_SET

    def _global_writers(self, module: ModuleFacts) -> Dict[str, List[Function]]:
        """The functions that assign each name they declare ``global``."""
        found = self._writers.get(module.path)
        if found is None:
            found = {}
            for function in module.functions.values():
                for name in function.global_names:
                    found.setdefault(name, []).append(function)
            self._writers[module.path] = found
        return found

    # ------------------------------------------------------------------ parameters
    def param(self, frame: Frame, name: str) -> Values:
        key = (frame.key, name)
        found = self._params.get(key)
        if found is not None:
            return found
        self._params[key] = NOTHING
        found = self._param(frame, name)
        self._params[key] = found
        return found

    def _param(self, frame: Frame, name: str) -> Values:
        function = frame.function.function
        position = function.params.index(name)
        if position == 0 and self.receiver_param(frame.function):
            if frame.receiver is not None:
                return frozenset({frame.receiver})
            if frame.site is None:
                owner = self.index.class_of(frame.function)
                if owner is None:
                    return UNKNOWN_SET
                return frozenset({ClassObj(owner) if _is_classmethod(function) else Instance(owner, None)})
        if frame.site is not None:
            return self.bound_argument(frame.function, frame.site, name)
        sites, complete = self.callsites.of(frame)
        found = [self.bound_argument(frame.function, site, name) for site in sites]
        if not sites:
            default = _default(function, name)
            found.append(self.eval(default, frame) if default is not None else UNKNOWN_SET)
        if not complete:
            found.append(UNKNOWN_SET)
        return union(found)

    def receiver_param(self, function: FunctionRef) -> bool:
        """Whether the function's first parameter is bound to the object (or class) it is called on."""
        fn = function.function
        if fn.class_name is None or not fn.params or fn.is_lambda or fn.nested and fn.class_name is None:
            return False
        return not any(isinstance(d, Name) and d.dotted == "staticmethod" for d in fn.decorators)

    def parameter_expressions(self, frame: Frame, name: str) -> Tuple[List[Tuple[Value, Frame]], bool]:
        """The expressions (with the frames they are evaluated in) a parameter may be bound
        to in ``frame``, and whether that list is complete. Defaults are included where a
        call may not pass the parameter; ``*args``/``**kwargs`` parameters have none."""
        function = frame.function.function
        if frame.site is not None:
            return self._site_expressions(frame.function, frame.site, name)
        sites, complete = self.callsites.of(frame)
        found: List[Tuple[Value, Frame]] = []
        for site in sites:
            expressions, closed = self._site_expressions(frame.function, site, name)
            found.extend(expressions)
            complete = complete and closed
        if not sites:
            default = _default(function, name)
            if default is not None:
                found.append((default, frame))
            else:
                complete = False
        return found, complete

    def _site_expressions(self, function: FunctionRef, site: Site, name: str) -> Tuple[List[Tuple[Value, Frame]], bool]:
        fn = function.function
        kinds = fn.param_kinds or ("normal",) * len(fn.params)
        kind = kinds[fn.params.index(name)]
        if kind in ("star", "starstar"):
            return [], False
        callee_frame = self.frame(function, None, site)
        if kind in ("posonly", "normal"):
            positional_params = [p for p, k in zip(fn.params, kinds) if k in ("posonly", "normal")]
            position = positional_params.index(name) - site.offset
            arguments, closed = self.positional_arguments(site)
            if 0 <= position < len(arguments):
                return [arguments[position]], True
            if position >= len(arguments) and not closed:
                return [], False
        if kind != "posonly":
            for key, value, frame in reversed(site.keywords()):
                if key == name:
                    return [(value, frame)], True
        found: List[Tuple[Value, Frame]] = []
        complete = not (site.call.star_kwargs and not site.double_stars())
        for value, frame in site.double_stars():
            for obj in self.eval(value, frame):
                if not isinstance(obj, DictObj):
                    complete = False
                    continue
                for entry in self.dict_entries(obj):
                    if entry.key == name:
                        found.append((entry.value, entry.frame))
                    elif entry.key is Entry.ANY:
                        complete = False
                complete = complete and not obj.open
        default = _default(fn, name)
        if default is not None:
            found.append((default, callee_frame))
        elif not found:
            complete = False
        return found, complete

    def bound_argument(self, function: FunctionRef, site: Site, name: str) -> Values:
        """The values ``site`` passes for the parameter ``name`` of ``function``."""
        fn = function.function
        kinds = fn.param_kinds or ("normal",) * len(fn.params)
        index = fn.params.index(name)
        kind = kinds[index]
        positional_params = [p for p, k in zip(fn.params, kinds) if k in ("posonly", "normal")]
        callee_frame = self.frame(function, None, site)
        if kind == "star":
            arguments, closed = self.positional_arguments(site)
            extra = arguments[max(0, len(positional_params) - site.offset):]
            entries = [Entry(v, f) for v, f in extra]
            if not closed:
                entries += [Entry(v, f, spread=True) for v, f in site.stars()]
            return frozenset({SeqObj(entries, open=False, indexable=closed)})
        if kind == "starstar":
            named = set(fn.params)
            entries = [Entry(v, f, key) for key, v, f in site.keywords() if key not in named]
            entries += [Entry(v, f, Entry.ANY, spread=True) for v, f in site.double_stars()]
            return frozenset({DictObj(entries, open=site.call.star_kwargs and not site.double_stars())})
        if kind in ("posonly", "normal"):
            position = positional_params.index(name) - site.offset
            arguments, closed = self.positional_arguments(site)
            if 0 <= position < len(arguments):
                value, frame = arguments[position]
                return self.eval(value, frame)
            if position >= len(arguments) and not closed:
                return union(self.elements(self.eval(v, f)) for v, f in site.stars()) | UNKNOWN_SET
        if kind != "posonly":
            for key, value, frame in reversed(site.keywords()):
                if key == name:
                    return self.eval(value, frame)
        found: List[Values] = []
        passed_maybe = False
        for value, frame in site.double_stars():
            for obj in self.eval(value, frame):
                if isinstance(obj, DictObj):
                    for entry in self.dict_entries(obj):
                        if entry.key == name:
                            found.append(self.eval(entry.value, entry.frame))
                        elif entry.key is Entry.ANY:
                            passed_maybe = True
                    passed_maybe = passed_maybe or obj.open
                else:
                    passed_maybe = True
        if passed_maybe or (site.call.star_kwargs and not site.double_stars()):
            found.append(UNKNOWN_SET)
        if not found or passed_maybe:
            default = _default(fn, name)
            found.append(self.eval(default, callee_frame) if default is not None else UNKNOWN_SET)
        return union(found)

    def positional_arguments(self, site: Site) -> Tuple[List[Tuple[Value, Frame]], bool]:
        """The positional arguments a site passes, with ``*x`` expanded when ``x`` is a
        sequence whose elements are known in order; False when the tail is not known."""
        arguments = site.positional()
        for value, frame in site.stars():
            values = self.eval(value, frame)
            only = next(iter(values)) if len(values) == 1 else None
            if not isinstance(only, SeqObj) or not only.indexable or only.open:
                return arguments, False
            arguments = arguments + [(e.value, e.frame) for e in only.entries]
        return arguments, True

    def keyword_values(self, call: Call, frame: Frame, name: str, position: Optional[int] = None) -> Optional[Values]:
        """What ``call`` passes for the keyword ``name`` (or at ``position``), also through
        ``**kwargs`` dicts and ``*args``: None when it certainly passes nothing; UNKNOWN in
        the set when it may pass something unseen (or nothing)."""
        value = call.argument(name, position)
        if value is not None:
            return self.eval(value, frame)
        site = Site(frame, call)
        found: List[Values] = []
        if position is not None and call.stars:
            arguments, closed = self.positional_arguments(site)
            if position < len(arguments):
                return self.eval(*arguments[position])
            if not closed:
                found.append(UNKNOWN_SET)
        if call.star_kwargs and not call.double_stars:
            found.append(UNKNOWN_SET)
        for value, inner in site.double_stars():
            for obj in self.eval(value, inner):
                if not isinstance(obj, DictObj):
                    found.append(UNKNOWN_SET)
                    continue
                for entry in self.dict_entries(obj):
                    if entry.key == name:
                        found.append(self.eval(entry.value, entry.frame))
                    elif entry.key is Entry.ANY:
                        found.append(UNKNOWN_SET)
                if obj.open:
                    found.append(UNKNOWN_SET)
        return union(found) if found else None

    # ------------------------------------------------------------------ calls
    def _call(self, call: Call, frame: Frame) -> Values:
        func = call.func
        if isinstance(func, Attr) and isinstance(func.value, Call) and self._is_super_call(func.value, frame):
            receiver = self._super(frame)
            callees = self.attribute(receiver, func.attr)
        else:
            callees = self._able_to_bind(self.eval(func, frame), call)
        return union(self.call_object(obj, Site(frame, call)) for obj in callees)

    def _able_to_bind(self, callees: Values, call: Call) -> Values:
        """Of several classes a call may build (``data_dict[args.data](root, size=s)``), those
        whose ``__init__`` accepts the arguments written: a class that would raise
        ``TypeError`` there is not what that call builds. All of them when none does."""
        classes = [obj for obj in callees if isinstance(obj, ClassObj)]
        if len(classes) < 2 or call.star_args or call.star_kwargs:
            return callees
        refused = frozenset(obj for obj in classes if not self._accepts(obj.cls, call))
        return callees - refused if len(refused) < len(classes) else callees

    def _accepts(self, cls: ClassRef, call: Call) -> bool:
        init = self.index.method(cls, "__init__")
        if init is None:
            return True
        function = init.function
        kinds = dict(zip(function.params[1:], function.param_kinds[1:]))
        positional = [name for name, kind in kinds.items() if kind in ("posonly", "normal")]
        if len(call.args) > len(positional) and "star" not in kinds.values():
            return False
        given = set(positional[:len(call.args)])
        for keyword, _ in call.kwargs:
            if kinds.get(keyword) in ("normal", "kwonly"):
                given.add(keyword)
            elif "starstar" not in kinds.values():
                return False
        defaults = {name for name, _ in function.defaults}
        required = [name for name, kind in kinds.items() if kind in ("posonly", "normal", "kwonly") and name not in defaults]
        return all(name in given for name in required)

    def _is_super_call(self, call: Call, frame: Frame) -> bool:
        return isinstance(call.func, Name) and call.func.qualified == "builtins.super"

    def _super(self, frame: Frame) -> Values:
        owner = self.index.class_of(frame.function)
        if owner is None:
            return UNKNOWN_SET
        receivers = self.param(frame, frame.function.function.params[0]) if frame.function.function.params else UNKNOWN_SET
        return frozenset(SuperObj(owner, r) for r in receivers if r is not None) or frozenset({SuperObj(owner, None)})

    def call_object(self, obj: Obj, site: Site) -> Values:
        if isinstance(obj, ClassObj):
            return frozenset({Instance(obj.cls, site, chosen=obj.chosen)})
        if isinstance(obj, FunctionObj):
            return self._call_function(obj, site)
        if isinstance(obj, External):
            return self._call_external(obj.qualified, site)
        if isinstance(obj, Instance):
            method = self.index.method(obj.cls, "__call__")
            if method is None:
                return UNKNOWN_SET
            return self._call_function(FunctionObj(method, obj), site)
        if isinstance(obj, MethodOf):
            return self._call_method_of(obj, site)
        return UNKNOWN_SET

    def callee_frame(self, obj: FunctionObj, site: Site) -> Frame:
        offset = 1 if obj.receiver is not None and self.receiver_param(obj.function) else 0
        return self.frame(obj.function, obj.receiver, Site(site.frame, site.call, offset, obj.partial))

    def _call_function(self, obj: FunctionObj, site: Site) -> Values:
        function = obj.function.function
        if obj.receiver is not None and self.registries.is_registry(obj.receiver):
            if function.name in library.REGISTRY_BUILDS:
                config = site.call.args[0] if site.call.args else None
                return self.registries.build(frozenset({obj.receiver}), config, site.frame, site)
            if function.name in library.REGISTRY_LOOKUPS and site.call.args:
                return self.registries.lookup(obj.receiver, site.call.args[0], site.frame)
        if any(_spelled(d) == "property" for d in function.decorators):
            return UNKNOWN_SET
        frame = self.callee_frame(obj, site)
        if function.yields or function.yield_froms:
            entries = [Entry(v, frame) for v in function.yields] + [Entry(v, frame, spread=True) for v in function.yield_froms]
            return frozenset({SeqObj(entries, indexable=False)})
        if not function.returns:
            return frozenset({NONE})
        guards = function.return_guards if len(function.return_guards) == len(function.returns) else [()] * len(function.returns)
        running = [value for value, guard in zip(function.returns, guards) if self.guards_may_hold(guard, frame)]
        return union(self.eval(value, frame) for value in running) if running else UNKNOWN_SET

    def _call_external(self, qualified: str, site: Site) -> Values:
        call, frame = site.call, site.frame
        if qualified in library.PASS_THROUGH:
            argument = call.args[library.PASS_THROUGH[qualified]] if len(call.args) > library.PASS_THROUGH[qualified] else None
            if argument is not None:
                return self.eval(argument, frame)
            return UNKNOWN_SET if qualified not in ("list", "tuple") else frozenset({SeqObj([])})
        if qualified in library.DATASET_COMBINERS:
            argument = call.argument("datasets", 0)
            return self.elements(self.eval(argument, frame)) if argument is not None else UNKNOWN_SET
        if qualified in library.SPLITTERS:
            argument = call.argument("dataset", 0)
            return frozenset({SeqObj([Entry(argument, frame)], indexable=False)}) if argument is not None else UNKNOWN_SET
        if qualified in library.PARTIAL and call.args:
            found: Set[Obj] = set()
            for target in self.eval(call.args[0], frame):
                if isinstance(target, FunctionObj):
                    chained = Site(site.frame, site.call, site.offset, target.partial) if target.partial is not None else site
                    found.add(FunctionObj(target.function, target.receiver, chained))
                elif isinstance(target, ClassObj):
                    found.add(target)
                else:
                    found.add(UNKNOWN)
            return frozenset(found)
        if qualified in library.DICT:
            entries = [Entry(v, frame, key) for key, v in call.kwargs]
            zipped = self._zipped_entries(call.args[0], frame) if call.args else None
            entries += zipped if zipped is not None else [Entry(a, frame, Entry.ANY, spread=True) for a in call.args[:1]]
            entries += [Entry(v, frame, Entry.ANY, spread=True) for v in call.double_stars]
            return frozenset({DictObj(entries, open=call.star_args)})
        if qualified in library.GETATTR and len(call.args) >= 2:
            return self._getattr(call, frame)
        if qualified in library.IMPORT_MODULE and call.args:
            name = self.constant(call.args[0], frame)
            if name is not None and isinstance(name.value, str):
                module = self.index.module_named(name.value, frame.module)
                return frozenset({ModuleObj(module)}) if module is not None else frozenset({External(name.value)})
            return UNKNOWN_SET
        if qualified in library.NAMESPACE_LOOKUPS:
            if qualified == "eval" and call.args:
                return self._eval_lookup(call.args[0], frame)
            return frozenset({MethodOf(ModuleObj(frame.module), "__dict__")})
        if qualified in library.SUPER:
            return self._super(frame)
        if qualified in library.TYPE and len(call.args) == 3:
            return self._runtime_class(call, frame)
        if qualified in library.REGISTRY_BUILDERS and len(call.args) >= 2:
            return self.registries.build(self.eval(call.args[1], frame), call.args[0], frame, site)
        return frozenset({ExternalInstance(qualified, site)})

    def _zipped_entries(self, value: Value, frame: Frame) -> Optional[List[Entry]]:
        """``dict(zip(keys, values))``: keys paired with values when both are closed
        sequences of the same length, else every value under any key; None when ``value``
        is not a ``zip`` of two."""
        if not (isinstance(value, Call) and isinstance(value.func, Name) and value.func.qualified == "builtins.zip"):
            return None
        if len(value.args) != 2 or value.star_args:
            return None
        keys, values = self.eval(value.args[0], frame), self.eval(value.args[1], frame)
        if len(keys) == 1 and len(values) == 1:
            key_seq, value_seq = next(iter(keys)), next(iter(values))
            if _closed_sequence(key_seq) and _closed_sequence(value_seq) and len(key_seq.entries) == len(value_seq.entries):
                pairs = zip(key_seq.entries, value_seq.entries)
                return [Entry(v.value, v.frame, self._static_key(k.value, k.frame)) for k, v in pairs]
        found = [Entry(v.value, v.frame, Entry.ANY) for seq in values if isinstance(seq, SeqObj) for v in seq.entries if not v.spread]
        if any(not isinstance(seq, SeqObj) or seq.open or any(v.spread for v in seq.entries) for seq in values):
            found.append(Entry(value, frame, Entry.ANY, spread=True))
        return found

    def _runtime_class(self, call: Call, frame: Frame) -> Values:
        """``type(name, (Base, ...), {"method": function, ...})``: a class made at run time."""
        name = self.constant(call.args[0], frame)
        bases, namespace = call.args[1], call.args[2]
        if not isinstance(bases, Seq) or not isinstance(namespace, DictDisplay):
            return UNKNOWN_SET
        module = frame.module
        methods = {}
        for key, value in zip(namespace.keys, namespace.values):
            if not (isinstance(key, Const) and isinstance(key.value, str)):
                continue
            if isinstance(value, Lambda) and value.qualname in module.functions:
                methods[key.value] = value.qualname
            elif isinstance(value, Name):
                for obj in self.eval(value, frame):
                    if isinstance(obj, FunctionObj) and obj.function.module is module:
                        methods[key.value] = obj.function.function.qualname
        label = name.value if name is not None and isinstance(name.value, str) else "<type>"
        qualname = f"{label}<type:{call.span.line}:{call.span.col}>"
        cls = Class(qualname=qualname, name=label, span=call.span, bases=bases.items, methods=methods)
        return frozenset({ClassObj(ClassRef(module, cls))})

    def _getattr(self, call: Call, frame: Frame) -> Values:
        holders = self.eval(call.args[0], frame)
        name = self.constant(call.args[1], frame)
        found: List[Values] = []
        if name is not None and isinstance(name.value, str):
            found.append(self.attribute(holders, name.value))
        else:
            for holder in holders:
                if isinstance(holder, ModuleObj):
                    found.append(self._namespace(holder.module, own_only=True))
                else:
                    found.append(UNKNOWN_SET)
        if len(call.args) > 2:
            found.append(self.eval(call.args[2], frame))
        return union(found)

    def _eval_lookup(self, expression: Value, frame: Frame) -> Values:
        """``eval(name)`` with a name from config: what the module can name, narrowed to a
        module when the string starts with one (``eval("datasets." + cfg.DATASET)``)."""
        prefix = expression.left if isinstance(expression, BinOp) and expression.op == "Add" else expression
        constant = self.constant(prefix, frame)
        if constant is not None and isinstance(constant.value, str):
            dotted = constant.value.rstrip(".")
            if dotted.replace(".", "").isidentifier():
                head, *rest = dotted.split(".")
                values = self.module_member(frame.module, head)
                for part in rest:
                    values = self.attribute(values, part)
                if prefix is expression:
                    return values
                return union(self._namespace(v.module) for v in values if isinstance(v, ModuleObj)) or UNKNOWN_SET
        return self._namespace(frame.module)

    def _namespace_item(self, module: ModuleFacts, key: Optional[Constant]) -> Values:
        """``globals()[name]``: the module-level name, or any class or function when the
        name is known only at run time."""
        if key is not None and isinstance(key.value, str):
            return self.module_member(module, key.value)
        return self._namespace(module)

    def _namespace(self, module: ModuleFacts, own_only: bool = False) -> Values:
        """Every project class and function a module can name: ``eval(cfg.model)``,
        ``globals()[name]``, ``getattr(module, name)``."""
        found: List[Values] = [frozenset({UNKNOWN})]
        for name, kind in module.toplevel.items():
            if kind in ("class", "def"):
                found.append(self.module_member(module, name))
        if not own_only:
            for name in module.imports:
                values = self.module_member(module, name)
                found.append(frozenset(v for v in values if isinstance(v, (ClassObj, FunctionObj))))
        label = f"one of the classes a name looked up in `{module.name or module.path}` at run time may pick"
        return frozenset(ClassObj(v.cls, label) if isinstance(v, ClassObj) else v for v in union(found))

    def _call_method_of(self, obj: MethodOf, site: Site) -> Values:
        receiver, name, call, frame = obj.receiver, obj.name, site.call, site.frame
        if isinstance(receiver, DictObj):
            if name in ("get", "pop", "setdefault") and call.args:
                if self._certainly_missing(receiver, call.args[0], frame):
                    return self.eval(call.args[1], frame) if len(call.args) > 1 else frozenset({NONE})
                found = self.item(frozenset({receiver}), call.args[0], frame)
                if len(call.args) > 1:
                    found |= self.eval(call.args[1], frame)
                elif name == "get":
                    found |= frozenset({NONE})
                return found
            if name == "copy":
                return frozenset({receiver})
            if name == "values":
                return frozenset({SeqObj((e for e in self.dict_entries(receiver)), receiver.open, indexable=False)})
            return UNKNOWN_SET
        if isinstance(receiver, ExternalInstance) and name in library.RETURNS_RECEIVER:
            return frozenset({receiver})
        if isinstance(receiver, ExternalInstance) and receiver.qualified in library.ARGUMENT_PARSERS:
            if name in ("parse_args", "parse_known_args"):
                return frozenset({ArgsObj(receiver, pair=name == "parse_known_args")})
        if isinstance(receiver, SeqObj) and name in ("copy", "__iter__"):
            return frozenset({receiver})
        if self.registries.is_registry(receiver):
            if name in library.REGISTRY_LOOKUPS and call.args:
                return self.registries.lookup(receiver, call.args[0], frame)
            if name in library.REGISTRY_BUILDS:
                config = call.args[0] if call.args else None
                return self.registries.build(frozenset({receiver}), config, frame, site)
        if isinstance(receiver, ModuleObj) and name == "__dict__":
            return UNKNOWN_SET
        return UNKNOWN_SET

    def _certainly_missing(self, holder: DictObj, index: Value, frame: Frame) -> bool:
        """A closed dict whose entries, all with constant keys, have none for this constant key
        (``{"mixup": 0.5}.get("noise")`` is the default)."""
        if holder.open:
            return False
        key = self.constant(index, frame)
        if key is None:
            return False
        return all(not e.spread and e.key is not Entry.ANY and e.key != key.value for e in self.dict_entries(holder))

    # ------------------------------------------------------------------ attributes
    def attribute(self, values: Values, name: str) -> Values:
        return union(self.attribute_of(obj, name) for obj in values)

    def attribute_of(self, obj: Obj, name: str) -> Values:
        key = (obj.key, name)
        found = self._attributes.get(key)
        if found is not None:
            return found
        self._attributes[key] = NOTHING
        found = self._attribute_of(obj, name)
        self._attributes[key] = found
        return found

    def _attribute_of(self, obj: Obj, name: str) -> Values:
        if isinstance(obj, ModuleObj):
            return self.module_member(obj.module, name)
        if isinstance(obj, Instance):
            return self._instance_attribute(obj, name)
        if isinstance(obj, ClassObj):
            return self._class_attribute(obj.cls, name)
        if isinstance(obj, External):
            return frozenset({External(f"{obj.qualified}.{name}")})
        if isinstance(obj, SuperObj):
            return self._super_attribute(obj, name)
        if isinstance(obj, ExternalInstance):
            held = library.LIBRARY_ATTRIBUTES.get(obj.qualified, {}).get(name)
            if held is not None:
                argument = obj.site.call.argument(*held)
                return self.eval(argument, obj.site.frame) if argument is not None else frozenset({NONE})
            return frozenset({MethodOf(obj, name)})
        if isinstance(obj, ArgsObj) and not obj.pair:
            return self._argparse_default(obj.parser, name)
        if isinstance(obj, HParams):
            return self.param(obj.init_frame, name) if obj.holds(name) else UNKNOWN_SET
        if isinstance(obj, (DictObj, SeqObj, Constant, FunctionObj, MethodOf)):
            return frozenset({MethodOf(obj, name)})
        return UNKNOWN_SET

    def _argparse_default(self, parser: ExternalInstance, dest: str) -> Values:
        """The values the option stored in ``dest`` may hold: its default, or whatever the
        command line may give it (the constants of ``choices``, ``True`` for a
        ``store_true`` flag, anything for a free value). A ``set_defaults`` key that no
        option writes is exactly its value."""
        defaults: List[Values] = []
        overridden: Optional[Values] = None
        command_line: List[Values] = []
        for module, function, call in self._parser_calls().get(dest, ()):
            method = call.func.dotted.rsplit(".", 1)[-1]
            frame = self.function_frame(module, function)
            receiver = Name(call.func.dotted.rsplit(".", 1)[0], call.func.span, call.func.qualified.rsplit(".", 1)[0] if call.func.qualified else None, call.func.scope)
            holders = self.eval(receiver, frame)
            if not any(_same_parser(h, parser) or (isinstance(h, ExternalInstance) and _group_of(h, parser, self, frame)) for h in holders):
                continue
            if method == "set_defaults":
                if overridden is None:
                    overridden = self.eval(call.kwarg(dest), frame)
                continue
            command_line.append(self._command_line_values(call, frame))
            if call.kwarg("required") is not None and self.truth(call.kwarg("required"), frame) is not False:
                continue
            default = call.kwarg("default")
            if default is not None:
                defaults.append(self.eval(default, frame))
            else:
                action = self.constant(call.kwarg("action"), frame) if call.kwarg("action") is not None else None
                implied = {"store_true": False, "store_false": True}.get(action.value if action else None)
                defaults.append(frozenset({Constant(implied)}))
        if overridden is not None:
            defaults = [overridden]
        if not defaults and not command_line:
            return UNKNOWN_SET
        return union(defaults + command_line)

    def _command_line_values(self, call: Call, frame: Frame) -> Values:
        """What a command line may store through one ``add_argument``."""
        action = self.constant(call.kwarg("action"), frame) if call.kwarg("action") is not None else None
        kind = action.value if action is not None else None
        if kind == "store_true":
            return frozenset({Constant(True)})
        if kind == "store_false":
            return frozenset({Constant(False)})
        if kind == "store_const" and call.kwarg("const") is not None:
            return self.eval(call.kwarg("const"), frame)
        choices = call.kwarg("choices")
        if choices is not None and kind in (None, "store") and call.kwarg("nargs") is None:
            values = self.elements(self.eval(choices, frame))
            if values and all(isinstance(v, Constant) for v in values):
                return values
        return frozenset({COMMAND_LINE})

    def _parser_calls(self) -> Dict[str, List[Tuple[ModuleFacts, Function, Call]]]:
        """``add_argument``/``set_defaults`` calls of the analysed modules, by the option they
        set (modules analysed later are added when they appear)."""
        table = self._parsers
        for module in self._new_modules("parsers"):
            for function, call in module.all_calls():
                if not (isinstance(call.func, Name) and "." in call.func.dotted):
                    continue
                method = call.func.dotted.rsplit(".", 1)[-1]
                if method == "add_argument":
                    dest = _option_dest(call)
                    if dest:
                        table.setdefault(dest, []).append((module, function, call))
                elif method == "set_defaults":
                    for key, _ in call.kwargs:
                        table.setdefault(key, []).insert(0, (module, function, call))
        return table

    def _new_modules(self, table: str) -> List[ModuleFacts]:
        """Analysed modules a per-module table has not seen yet."""
        seen = self._scanned.setdefault(table, set())
        fresh = [m for path, m in list(self.index.modules.items()) if path not in seen]
        seen.update(m.path for m in fresh)
        return fresh

    def _class_attribute(self, cls: ClassRef, name: str) -> Values:
        method = self.index.method(cls, name)
        if method is not None:
            if _is_classmethod(method.function):
                return frozenset({FunctionObj(method, ClassObj(cls))})
            return frozenset({FunctionObj(method)})
        found: List[Values] = []
        for item in self.index.mro(cls):
            frame = self.module_frame(item.module)
            found += [self.eval(a.value, frame) for a in item.cls.body_assigns if a.target == name]
            nested = item.module.classes.get(f"{item.cls.qualname}.{name}")
            if nested is not None:
                found.append(frozenset({ClassObj(ClassRef(item.module, nested))}))
        return union(found) if found else UNKNOWN_SET

    def _instance_attribute(self, instance: Instance, name: str) -> Values:
        cls = instance.cls
        method = self.index.method(cls, name)
        if method is not None:
            decorators = method.function.decorators
            if any(_spelled(d) in ("property", "cached_property") for d in decorators):
                frame = self.method_frame(method, instance)
                return union(self.eval(v, frame) for v in method.function.returns) if method.function.returns else UNKNOWN_SET
            if any(isinstance(d, Name) and d.dotted == "staticmethod" for d in decorators):
                return frozenset({FunctionObj(method)})
            if _is_classmethod(method.function):
                return frozenset({FunctionObj(method, ClassObj(cls))})
            return frozenset({FunctionObj(method, instance)})
        found: List[Values] = []
        field = self._dataclass_field(instance, name)
        if field is not None:
            found.append(field)
        unknown_base = False
        for item in self.index.mro(cls):
            for qualname in item.cls.methods.values():
                function = item.module.functions[qualname]
                if not function.params or not self.receiver_param(FunctionRef(item.module, function)):
                    continue
                target = f"{function.params[0]}.{name}"
                assigns = [a for a in function.assigns if a.target == target]
                mutations = self._mutation_calls(item.module, function, target)
                if not assigns and not mutations:
                    continue
                frame = self.method_frame(FunctionRef(item.module, function), instance)
                values = union(self.eval(a.value, frame) for a in assigns if self.guards_may_hold(a.guards, frame))
                if mutations:
                    values = self._with_mutations(values or frozenset({SeqObj([], indexable=False)}), function, target, frame)
                found.append(values)
            frame = self.module_frame(item.module)
            if field is None:
                found += [self.eval(a.value, frame) for a in item.cls.body_assigns if a.target == name]
            nested = item.module.classes.get(f"{item.cls.qualname}.{name}")
            if nested is not None:
                found.append(frozenset({ClassObj(ClassRef(item.module, nested))}))
            unknown_base = unknown_base or any(
                not isinstance(b, ClassRef) and not (isinstance(b, ExternalRef) and b.qualified in ("object", "typing.Generic"))
                for b in self.index.bases(item)
            )
        found += self._outside_assignments(instance, name)
        if not found:
            found = self._library_base_attribute(instance, name)
        if not found:
            return UNKNOWN_SET
        values = union(found)
        return values | UNKNOWN_SET if unknown_base and not values else values

    def _dataclass_field(self, instance: Instance, name: str) -> Optional[Values]:
        """A field of a ``@dataclass`` object: what the construction passes for it (by
        keyword, or by position in field order, base classes' fields first), else its
        default. None when ``name`` is not such a field or the construction is not known."""
        order = list(reversed(self.index.mro(instance.cls)))
        if instance.site is None or not any(_is_dataclass(item.cls) for item in order):
            return None
        if any("__init__" in item.cls.methods for item in order):
            return None
        fields: List[str] = []
        default: Optional[Tuple[Value, ModuleFacts]] = None
        for item in order:
            if not _is_dataclass(item.cls):
                continue
            for field in item.cls.fields:
                if field not in fields:
                    fields.append(field)
            if name in item.cls.fields:
                assigned = [a.value for a in item.cls.body_assigns if a.target == name]
                default = (assigned[-1], item.module) if assigned else None
        if name not in fields:
            return None
        call = instance.site.call
        argument = call.argument(name, fields.index(name))
        if argument is not None:
            return self.eval(argument, instance.site.frame)
        if call.star_args or call.star_kwargs:
            return UNKNOWN_SET
        if default is None:
            return UNKNOWN_SET
        value, module = default
        if isinstance(value, Call) and _spelled(value.func) == "field":
            given = value.kwarg("default")
            return self.eval(given, self.module_frame(module)) if given is not None else UNKNOWN_SET
        return self.eval(value, self.module_frame(module))

    def _library_base_attribute(self, instance: Instance, name: str) -> List[Values]:
        """An attribute a library base class's ``__init__`` stores (``library.BASE_ATTRIBUTES``,
        Lightning's ``hparams``), from the base-initialiser call the project's ``__init__`` makes."""
        bases = self.index.external_bases(instance.cls)
        if name == "hparams" and any(b.split(".", 1)[0] in library.HPARAMS_ROOTS for b in bases):
            return self._hparams(instance)
        held = next((library.BASE_ATTRIBUTES[b][name] for b in bases if name in library.BASE_ATTRIBUTES.get(b, {})), None)
        if held is None:
            return []
        for init, frame, call in self._base_initialiser_calls(instance):
            for target in self.callee_objects(call, frame):
                if isinstance(target, External) and target.qualified.rpartition(".")[0] in library.BASE_ATTRIBUTES:
                    shift = 0 if _is_super_init(call) else 1
                    found = []
                    for parameter, position in held:
                        argument = call.argument(parameter, position + shift)
                        if argument is not None:
                            found.append(self.eval(argument, frame))
                    return found or [frozenset({NONE})]
        return []

    def _base_initialiser_calls(self, instance: Instance) -> Iterator[Tuple[FunctionRef, Frame, Call]]:
        """``super().__init__(...)`` / ``Base.__init__(self, ...)`` calls in the ``__init__``
        methods of the object's class and its project bases."""
        for item in self.index.mro(instance.cls):
            qualname = item.cls.methods.get("__init__")
            if qualname is None:
                continue
            init = FunctionRef(item.module, item.module.functions[qualname])
            frame = self.method_frame(init, instance)
            for call in init.function.calls:
                if _spelled(call.func) == "__init__":
                    yield init, frame, call

    def _hparams(self, instance: Instance) -> List[Values]:
        for item in self.index.mro(instance.cls):
            qualname = item.cls.methods.get("__init__")
            if qualname is None:
                continue
            init = FunctionRef(item.module, item.module.functions[qualname])
            receiver = init.function.params[0] if init.function.params else "self"
            for call in init.function.calls:
                if not (isinstance(call.func, Name) and call.func.dotted == f"{receiver}.save_hyperparameters"):
                    continue
                if call.star_args or call.star_kwargs or not all(isinstance(a, Const) and isinstance(a.value, str) for a in call.args):
                    return []
                ignored = call.kwarg("ignore")
                ignored_names = _constant_strings(ignored) if ignored is not None else ()
                if ignored_names is None:
                    return []
                names = tuple(a.value for a in call.args) or None
                return [frozenset({HParams(self.method_frame(init, instance), names, ignored_names)})]
        return []

    def _super_attribute(self, obj: SuperObj, name: str) -> Values:
        order = self.index.mro(obj.receiver.cls) if isinstance(obj.receiver, Instance) else self.index.mro(obj.cls)
        keys = [c.key for c in order]
        start = keys.index(obj.cls.key) + 1 if obj.cls.key in keys else 1
        for item in order[start:]:
            qualname = item.cls.methods.get(name)
            if qualname is not None:
                return frozenset({FunctionObj(FunctionRef(item.module, item.module.functions[qualname]), obj.receiver)})
        external = self.index.external_bases(obj.cls)
        return frozenset({External(f"{external[0] if external else 'object'}.{name}")})

    def _outside_assignments(self, instance: Instance, name: str) -> List[Values]:
        """``obj.name = value`` written outside the class, where ``obj`` may be ``instance``."""
        for module in self._new_modules("outside"):
            for function in module.functions.values():
                receiver_name = function.params[0] if function.class_name and function.params else None
                for assign in function.assigns:
                    head, _, attribute = assign.target.rpartition(".")
                    if head and head.split(".", 1)[0] != receiver_name:
                        self._outside.setdefault(attribute, []).append((module, function, assign, head))
        found: List[Values] = []
        for module, function, assign, head in self._outside.get(name, ()):
            frame = self.function_frame(module, function)
            holder = Name(head, assign.span, None, function.qualname)
            if function.qualname == MODULE_CODE:
                holder = Name(head, assign.span, f"{module.name}.{head}" if module.name else head, "")
            if any(isinstance(o, Instance) and o.cls.key == instance.cls.key for o in self.eval(holder, frame)):
                found.append(self.eval(assign.value, frame))
        return found

    # ------------------------------------------------------------------ containers
    def dict_entries(self, obj: DictObj, seen: Optional[Set[int]] = None) -> List[Entry]:
        """The dict's items, with ``**other`` spread in (each dict once: ``cfg = {**cfg, ...}``)."""
        seen = set() if seen is None else seen
        seen.add(obj.key)
        entries = list(obj.entries)
        if obj.origin is not None:
            entries += self.registries.stored_items(obj.origin)
        flat: List[Entry] = []
        for entry in entries:
            if entry.spread:
                for inner in self.eval(entry.value, entry.frame):
                    if isinstance(inner, DictObj) and inner.key not in seen and len(seen) < MAX_VALUES:
                        flat.extend(self.dict_entries(inner, seen))
                    elif isinstance(inner, SeqObj) and not inner.open:
                        flat.extend(self._pair_entries(inner, entry))
                    elif not isinstance(inner, DictObj):
                        flat.append(Entry(entry.value, entry.frame, Entry.ANY, spread=True))
            else:
                flat.append(entry)
        return flat

    def _pair_entries(self, pairs: SeqObj, spread: Entry) -> List[Entry]:
        """``dict([("a", A), ("b", B)])``: each two-element sequence is a key and its value."""
        found: List[Entry] = []
        for element in pairs.entries:
            evaluated = self.eval(element.value, element.frame) if not element.spread else UNKNOWN_SET
            for pair in evaluated:
                if _closed_sequence(pair) and len(pair.entries) == 2:
                    key, value = pair.entries
                    found.append(Entry(value.value, value.frame, self._static_key(key.value, key.frame)))
                else:
                    found.append(Entry(spread.value, spread.frame, Entry.ANY, spread=True))
        return found

    def item(self, holders: Values, index: Value, frame: Frame) -> Values:
        key = self.constant(index, frame) if not isinstance(index, Const) else Constant(index.value)
        found: List[Values] = []
        for holder in holders:
            if isinstance(holder, DictObj):
                entries = self.dict_entries(holder)
                matching = [e for e in entries if key is None or e.key is Entry.ANY or e.key == key.value]
                found += [self.eval(e.value, e.frame) if not e.spread else UNKNOWN_SET for e in matching]
                if holder.open or (not matching and key is None):
                    found.append(UNKNOWN_SET)
            elif isinstance(holder, SeqObj):
                if holder.indexable and key is not None and isinstance(key.value, int) and not holder.open:
                    position = key.value
                    if -len(holder.entries) <= position < len(holder.entries):
                        entry = holder.entries[position]
                        found.append(self.eval(entry.value, entry.frame))
                else:
                    found.append(self.elements(frozenset({holder})))
            elif isinstance(holder, (ClassObj, External)):
                found.append(frozenset({holder}))
            elif isinstance(holder, HParams) and key is not None and isinstance(key.value, str) and holder.holds(key.value):
                found.append(self.param(holder.init_frame, key.value))
            elif isinstance(holder, ArgsObj) and holder.pair and key is not None and key.value == 0:
                found.append(frozenset({ArgsObj(holder.parser)}))
            elif self.registries.is_registry(holder):
                found.append(self.registries.lookup(holder, index, frame))
            elif isinstance(holder, MethodOf) and holder.name == "__dict__" and isinstance(holder.receiver, ModuleObj):
                found.append(self._namespace_item(holder.receiver.module, key))
            else:
                found.append(UNKNOWN_SET)
        return union(found) if found else UNKNOWN_SET

    def elements(self, values: Values, seen: Optional[Set[int]] = None) -> Values:
        """What iterating any of ``values`` may give."""
        seen = set() if seen is None else seen
        found: List[Values] = []
        for obj in values:
            if obj.key in seen or len(seen) > MAX_VALUES:
                continue
            seen.add(obj.key)
            if isinstance(obj, SeqObj):
                for entry in obj.entries:
                    evaluated = self.eval(entry.value, entry.frame)
                    found.append(self.elements(evaluated, seen) if entry.spread else evaluated)
                if obj.open:
                    found.append(UNKNOWN_SET)
            elif isinstance(obj, DictObj):
                found += [frozenset({Constant(e.key)}) for e in obj.entries if e.key is not Entry.ANY and not e.spread]
                found.append(UNKNOWN_SET)
            else:
                found.append(UNKNOWN_SET)
        return union(found) if found else NOTHING

    def _binop(self, value: BinOp, frame: Frame) -> Values:
        if value.op == "Add":
            left, right = self.eval(value.left, frame), self.eval(value.right, frame)
            if left and right and all(isinstance(o, SeqObj) for o in left | right):
                return frozenset(
                    SeqObj(a.entries + b.entries, a.open or b.open, a.indexable and b.indexable) for a in left for b in right
                )
        if value.op == "BitOr":
            left, right = self.eval(value.left, frame), self.eval(value.right, frame)
            if left and right and all(isinstance(o, DictObj) for o in left | right):
                return frozenset(DictObj(a.entries + b.entries, a.open or b.open) for a in left for b in right)
        return UNKNOWN_SET

    # ------------------------------------------------------------------ truth
    def truth(self, value: Value, frame: Frame) -> Optional[bool]:
        """True or False when ``value`` certainly has that truth value in ``frame``."""
        if isinstance(value, Not):
            inner = self.truth(value.value, frame)
            return None if inner is None else not inner
        if isinstance(value, BoolOp):
            parts = [self.truth(v, frame) for v in value.values]
            if value.op == "and":
                return False if False in parts else (True if all(p is True for p in parts) else None)
            return True if True in parts else (False if all(p is False for p in parts) else None)
        if isinstance(value, Compare):
            return self._compare(value, frame)
        if isinstance(value, Const):
            return bool(value.value)
        if not _simple(value):
            return None  # a call (``isinstance(x, T)``, ``dist.is_initialized()``): not decided statically
        values = self.eval(value, frame)
        truths = {_truth_of(obj) for obj in values}
        return truths.pop() if len(truths) == 1 else None

    def _compare(self, value: Compare, frame: Frame) -> Optional[bool]:
        unit = self._unit_draw_compare(value, frame)
        if unit is not None:
            return unit
        if not (_simple(value.left) and _simple(value.right)):
            return None
        left = self.eval(value.left, frame)
        right = self.eval(value.right, frame)
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
        if not guards or not _specific(frame):
            return True
        for test, expected in guards:
            actual = self.truth(test, frame)
            if actual is not None and actual != expected:
                return False
        return True

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
            return False if resolved else None
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

    # ------------------------------------------------------------------ questions rules ask
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
        library objects passed along (a ``Compose`` inside a ``RandomApply``)."""
        key = ("held", id(call), frame.key)
        found = self._eval.get(key)
        if found is not None:
            return found
        self._eval[key] = NOTHING
        collected: List[Values] = []
        for value in (*call.args, *(v for _, v in call.kwargs), *call.stars, *call.double_stars):
            collected.append(self._callables_within(self.eval(value, frame), depth))
        for value, spread in self._added_later(call, frame):
            values = self.eval(value, frame)
            collected.append(self._callables_within(self.elements(values) if spread else values, depth))
        found = self._eval[key] = union(collected)
        return found

    def _added_later(self, call: Call, frame: Frame) -> List[Tuple[Value, bool]]:
        """What the function adds to a list the built object holds, after building it:
        ``pipeline = Compose([...])`` then ``pipeline.transforms.append(Cutout(16))``."""
        function = frame.function.function
        names = [a.target for a in function.assigns if a.value is call and "." not in a.target]
        found: List[Tuple[Value, bool]] = []
        for name in names:
            for held in function.calls:
                func = held.func
                if not (isinstance(func, Name) and func.dotted.startswith(name + ".")):
                    continue
                if func.qualified is not None and function.qualname != MODULE_CODE:
                    continue  # a global of the same name, not the local built here
                parts = func.dotted.split(".")
                if len(parts) != 3 or parts[2] not in LIST_MUTATORS or not held.args:
                    continue
                if self.guards_may_hold(held.guards, frame):
                    found.append((held.args[-1], LIST_MUTATORS[parts[2]]))
        return found

    def _callables_within(self, values: Values, depth: int) -> Values:
        found: Set[Obj] = set()
        if depth > 3:
            return NOTHING
        for obj in values:
            if isinstance(obj, (FunctionObj, Instance)):
                found.add(obj)
            elif isinstance(obj, (SeqObj, DictObj)):
                entries = obj.entries if isinstance(obj, SeqObj) else self.dict_entries(obj)
                for entry in entries:
                    inner = self.eval(entry.value, entry.frame)
                    found |= self._callables_within(self.elements(inner) if entry.spread else inner, depth + 1)
            elif isinstance(obj, ExternalInstance):
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
        assigns = [a for a in assigns if not _excluded_by(a.guards, read_guards)]
    loops_around_read = [loop.span for loop in function.loops if _inside(loop.span, read)]
    killers = [
        a for a in assigns
        if _implied_by(a.guards, read_guards or ()) and _before(a.span, read) and not in_loop(a.span)
    ]
    if not killers:
        # Without an unconditional one, every assignment before the read may reach it, and
        # later ones only through a loop around it (not ``x = f(x)``'s own target).
        return [a for a in assigns if _before(a.span, read) or any(_inside(loop, a.span) for loop in loops_around_read)], False
    last = max(killers, key=lambda a: (a.span.line, a.span.col))
    kept = []
    for assign in assigns:
        if assign is last:
            kept.append(assign)
        elif (assign.span.line, assign.span.col) > (last.span.line, last.span.col):
            if _before(assign.span, read) or any(_inside(loop, assign.span) for loop in loops_around_read):
                kept.append(assign)
    return kept, True


def _implied_by(guards: Sequence[Guard], read_guards: Sequence[Guard]) -> bool:
    """Every guard of an assignment also guards the read (same test, same truth)."""
    return all(any(test is other and holds == truth for other, truth in read_guards) for test, holds in guards)


def _excluded_by(guards: Sequence[Guard], read_guards: Sequence[Guard]) -> bool:
    """Some guard of an assignment is a test the read runs under with the other truth."""
    return any(test is other and holds != truth for test, holds in guards for other, truth in read_guards)


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


def _group_of(holder: ExternalInstance, parser: ExternalInstance, flow: "ValueFlow", frame: Frame) -> bool:
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
