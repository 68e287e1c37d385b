"""Names and assignments: a local name to the assignments that may reach its read (flow
sensitive within the function: the other arm of an ``if`` and blocks that end in ``return``
do not reach), loop and tuple targets, lists and dicts grown by ``append``/``update``, module
members (with star imports and names a function declares ``global``).
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from seedlint.analysis import library
from seedlint.analysis.index import ClassRef, FunctionRef, exported
from seedlint.analysis.objects import (
    UNKNOWN_SET,
    ClassObj,
    DictObj,
    Entry,
    External,
    ExternalInstance,
    Frame,
    FunctionObj,
    Instance,
    MethodOf,
    ModuleObj,
    Obj,
    SeqObj,
    Values,
    hashable,
)
from seedlint.facts.model import (
    MODULE_CODE,
    Assign,
    Call,
    Const,
    DictDisplay,
    Function,
    Guard,
    Loop,
    ModuleFacts,
    Name,
    Span,
    Value,
)
from seedlint.analysis.flow.shared import (
    _reaching,
    _before,
    _inside,
    _spelled_last,
    _is_dict_mutator,
    union,
    LIST_MUTATORS,
    DICT_MUTATORS,
)


class NamesMixin:
    def _name(self, name: Name, frame: Frame) -> Values:
        module = frame.module
        if name.qualified is not None:
            if self._module_code_variable(name, frame):
                values = self._module_code_read(name.root, frame, name.span)
                for part in name.rest.split(".") if name.rest else ():
                    values = self.attribute(values, part)
                return values
            return self.global_name(name.qualified, module)
        own = name.scope == frame.function.function.qualname
        if not own:
            scope = module.functions.get(name.scope)
            if scope is None:
                return UNKNOWN_SET
            frame = self._enclosing_frame(frame, scope)
        values = self._local(name.root, frame, name.span, own)
        for part in name.rest.split(".") if name.rest else ():
            values = self.attribute(values, part)
        return values

    def _enclosing_frame(self, frame: Frame, scope: Function) -> Frame:
        """A closure reads its enclosing function's locals: in that function's own frame
        when the closure was made there (a lambda defined in the frame's function), else
        from any call."""
        return self.function_frame(frame.module, scope)

    def _local(self, root: str, frame: Frame, read: Optional[Span] = None, own: bool = False) -> Values:
        function = frame.function.function
        module = frame.module
        if function.qualname == MODULE_CODE:
            if read is not None and own and self._flows_in_module_code(module, root):
                return self._module_code_read(root, frame, read)
            return self.global_name(f"{module.name}.{root}" if module.name else root, module)
        found: List[Values] = []
        bound = self._bindings_of(function)
        assigns = list(bound[0].get(root, ()))
        killed = False
        if read is not None:
            # Every arm of an if/elif/else counts for what reaches the read, even arms that
            # cannot run here: only then drop what cannot.
            assigns, killed = _reaching(function, assigns, read, self._read_guards(function, read))
        assigns = [a for a in assigns if self.guards_may_hold(a.guards, frame)]
        if root in function.params and not killed:
            found.append(self.param(frame, root))
        for assign in assigns:
            found.append(self._narrowed(self.eval(assign.value, frame), assign, frame))
        for loop in bound[1].get(root, ()):
            found.append(self.elements(self.eval(loop.iterable, frame)))
        nested = module.functions.get(f"{function.qualname}.<locals>.{root}") if function.qualname != MODULE_CODE else None
        if nested is not None:
            found.append(frozenset({FunctionObj(FunctionRef(module, nested))}))
        local_class = module.classes.get(f"{function.qualname}.<locals>.{root}") if function.qualname != MODULE_CODE else None
        if local_class is not None:
            found.append(frozenset({ClassObj(ClassRef(module, local_class))}))
        values = union(found) if found else UNKNOWN_SET
        # a write before every assignment that reaches the read changed an older object
        since = None if (root in function.params and not killed) or bound[1].get(root) or not assigns else min(
            (a.span for a in assigns), key=lambda span: (span.line, span.col)
        )
        return self._with_mutations(values, function, root, frame, read if own else None, since)

    def _module_code_variable(self, name: Name, frame: Frame) -> bool:
        """A read in module code of one of the module's own variables (``train.ds`` read in
        ``train.py``'s top-level code) that only module code binds."""
        module = frame.module
        if frame.function.function.qualname != MODULE_CODE or name.scope:
            return False
        own = f"{module.name}.{name.root}" if module.name else name.root
        if not (name.qualified == own or name.qualified.startswith(own + ".")):
            return False
        return self._flows_in_module_code(module, name.root)

    def _flows_in_module_code(self, module: ModuleFacts, root: str) -> bool:
        """A module-level variable that only module code binds, by plain assignment: a read
        in module code itself then sees only the assignments that reach it, as in a function."""
        if module.toplevel.get(root) != "assign" or root in module.imports or root in self._global_writers(module):
            return False
        assigns, loops = self._bindings_of(module.module_code)
        return bool(assigns.get(root)) and not loops.get(root)

    def _module_code_read(self, root: str, frame: Frame, read: Span) -> Values:
        """A read in module code of a variable module code assigns: the assignments that
        reach it (not those in the other arm of an ``if`` the read runs under, nor those
        after it outside a loop around it), as the program runs from the top."""
        function = frame.function.function
        assigns, _ = _reaching(function, list(self._bindings_of(function)[0][root]), read, self._read_guards(function, read))
        assigns = [a for a in assigns if self.guards_may_hold(a.guards, frame)]
        found = [self._narrowed(self.eval(a.value, frame), a, frame) for a in assigns]
        values = self._with_mutations(union(found) if found else UNKNOWN_SET, function, root, frame, read)
        return frozenset(v.with_origin((frame.module.path, root)) if isinstance(v, DictObj) else v for v in values)

    def _narrowed(self, values: Values, assign: Assign, frame: Frame) -> Values:
        """``if isinstance(sampler, BatchSampler): batch_sampler = sampler``: only the values
        that may be instances of the class (``not isinstance``: only those that may not)."""
        value = assign.value
        if not isinstance(value, Name) or "." in value.dotted:
            return values
        for test, truth in assign.guards:
            if not (isinstance(test, Call) and isinstance(test.func, Name) and test.func.dotted == "isinstance"
                    and len(test.args) == 2 and isinstance(test.args[0], Name) and test.args[0].dotted == value.dotted):
                continue
            classes = self.eval(test.args[1], frame)
            classes = self.elements(classes) if any(isinstance(c, SeqObj) for c in classes) else classes
            if not classes or not all(isinstance(c, (ClassObj, External)) for c in classes):
                continue
            values = frozenset(v for v in values if self._may_be_instance(v, classes) is not (not truth))
        return values

    def _may_be_instance(self, obj, classes: Values) -> Optional[bool]:
        """True or False when ``obj`` certainly is, or is not, an instance of one of
        ``classes``; None when that cannot be told."""
        if isinstance(obj, Instance):
            own = {item.key for item in self.index.mro(obj.cls)}
            external = set(self.index.external_bases(obj.cls)) - {"object", "typing.Generic"}
            if any(isinstance(c, ClassObj) and c.cls.key in own or isinstance(c, External) and c.qualified in external for c in classes):
                return True
            # A library base may itself subclass a library class asked about; it never
            # subclasses a project class.
            return None if external and any(isinstance(c, External) for c in classes) else False
        if isinstance(obj, ExternalInstance):
            if any(isinstance(c, External) and c.qualified == obj.qualified for c in classes):
                return True
            return None
        return None

    def _bindings_of(self, function: Function) -> Tuple[Dict[str, List[Assign]], Dict[str, List[Loop]]]:
        """A function's assignments and ``for`` loops by the name they bind, in source order."""
        found = self._bindings.get(id(function))
        if found is None:
            assigns: Dict[str, List[Assign]] = {}
            loops: Dict[str, List[Loop]] = {}
            for assign in function.assigns:
                assigns.setdefault(assign.target, []).append(assign)
            for loop in function.loops:
                loops.setdefault(loop.target, []).append(loop)
            found = self._bindings[id(function)] = (assigns, loops)
        return found

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

    def _with_mutations(
        self, values: Values, function: Function, dotted: str, frame: Frame, read: Optional[Span] = None,
        since: Optional[Span] = None,
    ) -> Values:
        """A list or dict that ``dotted.append(x)`` / ``dotted.update(...)`` calls in
        ``function`` add to: their arguments join its entries. Given the read (a read in
        the function's own body), only the calls and stores that may run before it: those
        before it, and those in a loop around it; given ``since`` (where the first assignment
        that reaches the read is), none before that outside such a loop."""
        if not any(isinstance(v, (SeqObj, DictObj)) for v in values):
            return values

        def may_precede(span: Span) -> bool:
            in_loop = read is not None and any(_inside(loop.span, read) and _inside(loop.span, span) for loop in function.loops)
            if since is not None and _before(span, since) and not in_loop:
                return False
            return read is None or _before(span, read) or in_loop

        def surely_before(span: Span, guards) -> bool:
            """Runs, once, whenever the read does, before it: a later write of a key replaces it."""
            return read is not None and _before(span, read) and not guards and not any(
                _inside(loop.span, span) for loop in function.loops
            )

        mutations = [(call, spread) for call, spread in self._mutation_calls(frame.module, function, dotted)
                     if may_precede(call.span) and self.guards_may_hold(call.guards, frame)]
        stores = [
            item for item in function.item_assigns
            if isinstance(item.container, Name) and item.container.qualified is None and item.container.dotted == dotted
            and may_precede(item.span) and self.guards_may_hold(item.guards, frame)
        ]
        if not mutations and not stores:
            return values
        writes: List[Tuple[Span, List[Entry], Set[object]]] = []
        """Each write into a dict, in source order: its entries and the keys it surely replaces."""
        for call, _ in mutations:
            if not _is_dict_mutator(call):
                continue
            entries = [Entry(v, frame, key) for key, v in call.kwargs]
            entries += [Entry(a, frame, Entry.ANY, spread=True) for a in call.args[:1] if _spelled_last(call) == "update"]
            replaced = set()
            if _spelled_last(call) == "update" and surely_before(call.span, call.guards):
                replaced = {key for key, _ in call.kwargs} | _display_keys(call.args[0] if call.args else None)
            writes.append((call.span, entries, replaced))
        for item in stores:
            keys = self._static_keys(item.key, frame)
            single = len(keys) == 1 and keys[0] is not Entry.ANY and surely_before(item.span, item.guards)
            writes.append((item.span, [Entry(item.value, frame, key) for key in keys], set(keys) if single else set()))
        writes.sort(key=lambda write: (write[0].line, write[0].col))
        changed: Set[Obj] = set()
        for obj in values:
            if isinstance(obj, SeqObj):
                extra = [Entry(call.args[-1], frame, spread=spread) for call, spread in mutations if call.args and not _is_dict_mutator(call)]
                changed.add(SeqObj(obj.entries + tuple(extra), obj.open, indexable=False))
            elif isinstance(obj, DictObj):
                entries = list(obj.entries)
                for _, written, replaced in writes:
                    if replaced:
                        entries = [e for e in entries if e.spread or not hashable(e.key) or e.key not in replaced]
                    entries += written
                changed.add(DictObj(tuple(entries), obj.open, obj.origin, obj.attributes))
            else:
                changed.add(obj)
        return frozenset(changed)

    def _mutation_calls(self, module: ModuleFacts, function: Function, dotted: str) -> List[Tuple[Call, bool]]:
        key = (module.path, function.qualname, dotted)
        found = self._mutations.get(key)
        if found is None:
            found = []
            own = f"{module.name}.{dotted}." if module.name else f"{dotted}."
            for call in function.calls:
                func = call.func
                if not isinstance(func, Name) or func.dotted.rpartition(".")[0] != dotted:
                    continue
                # a module's own variable is spelled as a qualified global name, in module code too
                if func.qualified is None or func.qualified == own + func.dotted.rpartition(".")[2]:
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
                package = self.index.package_rebinding(parts, near) if cut == len(parts) and cut > 1 else None
                if package is not None:
                    return self.module_member(package, parts[-1])
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
        if name == "__dict__":  # the module's namespace: ``vars(mod)``, ``mod.__dict__.items()``
            return frozenset({MethodOf(ModuleObj(module), "__dict__")})
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


def _display_keys(value: Optional[Value]) -> Set[object]:
    """The constant keys of a dict display (``d.update({"a": 1})``); none for anything else."""
    if not isinstance(value, DictDisplay) or value.stars:
        return set()
    return {key.value for key in value.keys if isinstance(key, Const) and hashable(key.value)}
