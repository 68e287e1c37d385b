"""Who calls a function: the call sites the value flow binds a parameter from when the
frame it asks about has no call site of its own.

Candidates are found by spelling first (a module's calls are indexed once by the last
identifier of the callee: ``build_loader``, ``.set_epoch``, the class name for
``__init__``), in the modules already analysed and in the project files that mention the
name; each candidate is then confirmed by evaluating its callee. A decorator is a call
site too: ``@register("voc")`` calls what ``register("voc")`` returns with the class, and so
is a launch (``mp.spawn(main_worker, args=(ngpus, args))`` calls ``main_worker(i, ngpus, args)``;
see ``knowledge.launchers``).
"""

from __future__ import annotations

import os
from typing import Dict, List, Optional, Set, Tuple

from seedlint.analysis.index import ClassRef, FunctionRef
from seedlint.analysis.objects import ClassObj, Frame, FunctionObj, Instance, Site
from seedlint.facts.model import (
    MODULE_CODE,
    Attr,
    Call,
    Const,
    DictDisplay,
    Function,
    Lambda,
    ModuleFacts,
    Name,
    Seq,
    Subscript,
    Value,
)
from seedlint.knowledge.launchers import LAUNCHER_NAMES, LAUNCHERS, PROCESS_INDEX

MAX_NEW_FILES = 20
"""Project files parsed to find the callers of one function; beyond it the answer is
incomplete (the parameter may also be something else)."""
MAX_NEW_FILES_PER_RUN = 80
"""Project files parsed, over a whole run, only to find callers."""
COMMON_NAMES = frozenset({
    "__init__", "__call__", "forward", "setup", "build", "run", "main", "get", "update", "step", "train", "test",
    "call", "apply", "load", "save", "init", "reset", "process", "transform", "prepare", "configure", "start",
})
"""Names spelled in too many files for a text search on the name alone to narrow anything
down: their callers are looked for in the files that also spell the defining module's name
(``from train import main``), which a caller in another module must."""
CALLED_UNSPELLED = frozenset({"__init__", "__call__", "forward"})
"""Names Python calls without their spelling at the call (``Cls(...)``, ``obj(...)``,
``module(x)`` running ``forward``): no text search can find every caller."""
MAX_SUBCLASS_ROUNDS = 3


def is_test_module(path: str) -> bool:
    """A module of a test suite: under a ``tests``/``test`` folder, or named as pytest and
    unittest find tests (``test_*.py``, ``*_test.py``, ``conftest.py``)."""
    parts = path.replace(os.sep, "/").split("/")
    name = parts[-1]
    return (
        any(part in ("tests", "test") for part in parts[:-1])
        or name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
    )


def module_words(module: ModuleFacts) -> List[str]:
    """Names a file must spell to import from ``module``: its own name, or its package's
    when the package re-exports it (``from detlite.datasets import Coco`` spells
    ``datasets``, not ``coco``)."""
    stem = os.path.basename(module.path).rsplit(".", 1)[0]
    directory = os.path.dirname(module.path)
    words = [os.path.basename(directory)] if stem == "__init__" else [stem]
    while stem != "__init__" and os.path.isfile(os.path.join(directory, "__init__.py")):
        try:
            with open(os.path.join(directory, "__init__.py"), "rb") as handle:
                reexports = stem.encode() in handle.read()
        except OSError:
            break
        if not reexports:
            break
        words.append(os.path.basename(directory))
        stem, directory = os.path.basename(directory), os.path.dirname(directory)
    return words


def _spellings_of(value: Value) -> Set[str]:
    """How a callee or base is spelled, and the name it was imported under when the module
    imports it under another (``from train import Workspace as W``: ``W`` and ``Workspace``).
    A callee looked up in a container is spelled as the container (``BUILDERS[kind]["train"]``:
    ``BUILDERS``)."""
    while isinstance(value, Subscript):
        value = value.value
    names = {spelled(value)}
    if isinstance(value, Name) and value.qualified:
        names.add(value.qualified.rsplit(".", 1)[-1])
    return names


def spelled(value: Value) -> str:
    if isinstance(value, Name):
        return value.dotted.rsplit(".", 1)[-1]
    if isinstance(value, Attr):
        return value.attr
    if isinstance(value, Call):
        return spelled(value.func)
    return ""


class CallSites:
    def __init__(self, flow) -> None:
        self.flow = flow
        self.index = flow.index
        self._memo: Dict[tuple, Tuple[List[Site], bool]] = {}
        self._applications: Dict[Tuple[str, str], Call] = {}
        self._indexed: Set[str] = set()
        """Paths of the modules whose calls, decorators and classes the tables below hold."""
        self._calls: Dict[str, List[Tuple[ModuleFacts, Function, Call]]] = {}
        """The spelled callee -> its calls, in every indexed module."""
        self._decorated: Dict[str, List[Tuple[ModuleFacts, Call]]] = {}
        """The spelled decorator -> its applications (``deco(cls)`` calls)."""
        self._launched: Dict[str, List[Tuple[ModuleFacts, Function, Call]]] = {}
        """The spelled function a launch call is given -> the call of it the launch makes."""
        self._passed: Dict[str, List[Tuple[ModuleFacts, Function, Call]]] = {}
        """A name spelled as an argument -> the calls (launches' calls too) that pass it."""
        self._subclasses: Dict[str, List[Tuple[ModuleFacts, object]]] = {}
        """A spelled base class -> the classes that list it."""
        self._budget = MAX_NEW_FILES_PER_RUN

    def of(self, frame: Frame) -> Tuple[List[Site], bool]:
        """The sites that may call the frame's function (with its receiver) in the process
        that makes the call, and whether the search saw every candidate."""
        key = (frame.function.key, frame.receiver.key if frame.receiver is not None else None)
        found = self._memo.get(key)
        if found is None:
            self._memo[key] = ([], True)
            found = self._memo[key] = self._search(frame)
        return found

    def binding(self, frame: Frame) -> Tuple[List[Site], bool]:
        """The sites whose arguments the frame's parameters may be bound to: its callers
        (``of``) and the launches that run it in another process or thread."""
        sites, complete = self.of(frame)
        launches = self.launches(frame)
        return (sites + launches, complete) if launches else (sites, complete)

    def launches(self, frame: Frame) -> List[Site]:
        """The launch calls that run the frame's function (``mp.spawn(f, args=...)``,
        ``Process(target=f, ...)``), each as the call of ``f`` it makes."""
        if frame.receiver is not None:
            return []  # a launch is given a plain function
        key = ("launches", frame.function.key)
        found = self._memo.get(key)
        if found is not None:
            return found[0]
        names, _ = self._spellings(frame.function)
        sites: List[Site] = []
        if names:
            modules, _ = self._modules(names, frame.function.module)
            self._index_modules(modules)
            for module, function, call in self._hits(self._launched, names, modules):
                caller = self.flow.function_frame(module, function)
                sites.extend(self._matches(call, caller, frame))
        self._memo[key] = (sites, True)
        return sites

    # ------------------------------------------------------------------ search
    def _search(self, frame: Frame) -> Tuple[List[Site], bool]:
        target = frame.function
        names, complete = self._spellings(target)
        if not names:
            return [], False
        modules, searched_all = self._modules(names, target.module)
        complete = complete and searched_all
        spellings = names | {"__init__"} if target.function.name == "__init__" else names
        sites: List[Site] = []
        seen: Set[tuple] = set()
        self._index_modules(modules)
        for module, function, call in self._hits(self._calls, spellings, modules):
            caller = self._caller_frame(module, function, call, frame)
            for site in self._matches(call, caller, frame):
                if site.key not in seen:
                    seen.add(site.key)
                    sites.append(site)
        for module, call in self._hits(self._decorated, names, modules):
            caller = self.flow.module_frame(module)
            for site in self._matches(call, caller, frame):
                if site.key not in seen:
                    seen.add(site.key)
                    sites.append(site)
        if frame.receiver is None:
            for module, function, call in self._hits(self._passed, names, modules):
                caller = self.flow.function_frame(module, function)
                for site in self._through_parameters(call, caller, frame):
                    if site.key not in seen:
                        seen.add(site.key)
                        sites.append(site)
        if not is_test_module(target.module.path):
            # A test calls a function with whatever it means to test (a training augmentation
            # handed to the evaluation helper): that is no program the function runs in.
            sites = [s for s in sites if not is_test_module(s.frame.module.path)]
        sites.sort(key=lambda s: (s.frame.module.path, s.call.span.line, s.call.span.col, s.offset))
        return sites, complete

    def _through_parameters(self, call: Call, caller: Frame, target: Frame) -> List[Site]:
        """``init_processes(0, size, main, args)`` whose ``init_processes(rank, size, fn, args)``
        calls ``fn(args)``: that call, in the frame of ``init_processes`` for this call, is a
        call site of ``main``."""
        wanted = target.function.key
        found: List[Site] = []
        for obj in self.flow.callee_objects(call, caller):
            if not isinstance(obj, FunctionObj) or obj.partial is not None or obj.function.key == wanted:
                continue
            function = obj.function.function
            offset = 1 if obj.receiver is not None and self.flow.receiver_param(obj.function) else 0
            kinds = function.param_kinds or ("normal",) * len(function.params)
            positional = [p for p, k in zip(function.params, kinds) if k in ("posonly", "normal")]
            given = [(positional[i + offset], v) for i, v in enumerate(call.args) if i + offset < len(positional)]
            given += [(key, v) for key, v in call.kwargs if key in function.params]
            params = {
                param for param, value in given
                if isinstance(value, Name) and any(
                    isinstance(o, FunctionObj) and o.function.key == wanted and o.receiver is None
                    for o in self.flow.eval(value, caller)
                )
            }
            if not params:
                continue
            inner = self.flow.frame(obj.function, obj.receiver, Site(caller, call, offset))
            for made in function.calls:
                func = made.func
                if isinstance(func, Name) and func.qualified is None and func.dotted in params:
                    found.append(Site(inner, made))
        return found

    def _spellings(self, target: FunctionRef) -> Tuple[Set[str], bool]:
        function = target.function
        if function.qualname == MODULE_CODE:
            return set(), False
        if function.is_lambda:
            names = {a.target.rsplit(".", 1)[-1] for f in target.module.functions.values() for a in f.assigns
                     if isinstance(a.value, Lambda) and a.value.qualname == function.qualname}
            return names, bool(names)
        names = {function.name} | _containers_holding(target)
        if function.name == "__init__":
            owner = self.index.class_of(target)
            if owner is not None:
                names = self._constructor_spellings(owner)
        if ".<locals>." in function.qualname:
            outer = target.module.functions.get(function.qualname.rsplit(".<locals>.", 1)[0])
            if outer is not None:
                names.add(outer.name)
        return names, True

    def constructions(self, cls: ClassRef) -> Tuple[List[Instance], bool]:
        """Objects of ``cls`` or of a subclass, one per construction call in the project."""
        key = ("constructions", cls.key)
        found = self._memo.get(key)
        if found is not None:
            return found  # type: ignore[return-value]
        self._memo[key] = ([], False)
        names = self._constructor_spellings(cls, inheriting_init_only=False)
        modules, complete = self._modules(names, cls.module)
        instances: List[Instance] = []
        seen: Set[tuple] = set()
        self._index_modules(modules)
        for module, function, call in self._hits(self._calls, names, modules):
            frame = self.flow.function_frame(module, function)
            for obj in self.flow.callee_objects(call, frame):
                if isinstance(obj, ClassObj) and any(item.key == cls.key for item in self.index.mro(obj.cls)):
                    instance = Instance(obj.cls, Site(frame, call))
                    if instance.key not in seen:
                        seen.add(instance.key)
                        instances.append(instance)
        result = (instances, complete)
        self._memo[key] = result  # type: ignore[assignment]
        return result

    def _constructor_spellings(self, owner: ClassRef, inheriting_init_only: bool = True) -> Set[str]:
        """The class's name, and the names of subclasses (that inherit its ``__init__``)."""
        names = {owner.cls.name}
        frontier = {owner.cls.name}
        for _ in range(MAX_SUBCLASS_ROUNDS):
            modules, _ = self._modules(frontier, owner.module)
            self._index_modules(modules)
            added = set()
            for module, cls in self._hits(self._subclasses, frontier, modules):
                if cls.name in names or cls.name in added:
                    continue
                if inheriting_init_only and "__init__" in cls.methods:
                    continue
                ref = ClassRef(module, cls)
                if any(item.key == owner.key for item in self.index.mro(ref)):
                    added.add(cls.name)
            if not added:
                break
            names |= added
            frontier = added
        return names

    def _modules(self, names: Set[str], home: ModuleFacts) -> Tuple[List[ModuleFacts], bool]:
        """Analysed modules, plus project files that spell one of ``names`` (parsed now)."""
        modules = {home.path: home}
        modules.update(self.index.modules)
        files = self.flow.files
        if files is None:
            return list(modules.values()), True
        if names & CALLED_UNSPELLED:
            return list(modules.values()), False
        reachable_from = set(files.mentioning(module_words(home)))
        rare = sorted(n for n in names if n not in COMMON_NAMES and len(n) > 3)
        common = sorted(set(names) - set(rare))
        mentioning = set(files.mentioning(rare)) if rare else set()
        if common:
            # Every file spells `main`; the few that also spell `train` are the ones that can
            # import train.main.
            mentioning.update(files.mentioning(common))
        fresh = [path for path in sorted(mentioning) if path not in modules and path in reachable_from]
        complete = len(fresh) <= min(MAX_NEW_FILES, self._budget)
        for path in fresh[:min(MAX_NEW_FILES, self._budget)]:
            self._budget -= 1
            loaded = self.index.load_file(path)
            if loaded is not None:
                modules[loaded.path] = loaded
        return list(modules.values()), complete

    def _index_modules(self, modules: List[ModuleFacts]) -> None:
        """Adds the modules not indexed yet to the spelling tables."""
        for module in modules:
            if module.path in self._indexed:
                continue
            self._indexed.add(module.path)
            for function, call in module.all_calls():
                for name in _spellings_of(call.func):
                    self._calls.setdefault(name, []).append((module, function, call))
                launched = _launched_call(call) if spelled(call.func) in LAUNCHER_NAMES else None
                if launched is not None:
                    for name in _spellings_of(launched.func):
                        self._launched.setdefault(name, []).append((module, function, launched))
                for made in (call, launched) if launched is not None else (call,):
                    for value in (*made.args, *(v for _, v in made.kwargs)):
                        if isinstance(value, Name):
                            self._passed.setdefault(value.dotted.rsplit(".", 1)[-1], []).append((module, function, made))
            for definition in [*module.classes.values(), *(f for f in module.functions.values() if f.qualname != MODULE_CODE)]:
                if "." in definition.qualname:
                    continue
                for decorator in definition.decorators:
                    self._decorated.setdefault(spelled(decorator), []).append((module, self._application(module, definition, decorator)))
            for cls in module.classes.values():
                for base in {name for b in cls.bases for name in _spellings_of(b)}:
                    self._subclasses.setdefault(base, []).append((module, cls))

    @staticmethod
    def _hits(table: Dict[str, list], names: Set[str], modules: List[ModuleFacts]) -> list:
        """The table's entries for ``names`` that lie in ``modules``."""
        paths = {module.path for module in modules}
        found: list = []
        for name in sorted(names):
            found.extend(entry for entry in table.get(name, ()) if entry[0].path in paths)
        return found

    def _application(self, module: ModuleFacts, definition, decorator: Value) -> Call:
        key = (module.path, f"{definition.qualname}@{id(decorator)}")
        call = self._applications.get(key)
        if call is None:
            qualified = f"{module.name}.{definition.qualname}" if module.name else definition.qualname
            argument = Name(definition.name, definition.span, qualified, "")
            call = self._applications[key] = Call(decorator, (argument,), (), definition.span)
        return call

    # ------------------------------------------------------------------ matching
    def _caller_frame(self, module: ModuleFacts, function: Function, call: Call, target: Frame) -> Frame:
        """``self.m(...)`` inside the class of the target's receiver runs with that receiver."""
        receiver = target.receiver
        func = call.func
        if (
            isinstance(receiver, Instance) and function.class_name is not None and function.params
            and isinstance(func, Name) and func.qualified is None and func.root == function.params[0]
        ):
            owner = ClassRef(module, module.classes[function.class_name]) if function.class_name in module.classes else None
            if owner is not None and any(item.key == owner.key for item in self.index.mro(receiver.cls)):
                return self.flow.method_frame(FunctionRef(module, function), receiver)
        return self.flow.function_frame(module, function)

    def _matches(self, call: Call, caller: Frame, target: Frame) -> List[Site]:
        wanted = target.function.key
        receiver = target.receiver
        found: List[Site] = []
        for obj in self.flow.callee_objects(call, caller):
            if isinstance(obj, FunctionObj) and obj.function.key == wanted:
                if receiver is not None and obj.receiver is not None and not _compatible(self.index, obj.receiver, receiver):
                    continue
                offset = 1 if obj.receiver is not None and self.flow.receiver_param(obj.function) else 0
                found.append(Site(caller, call, offset, obj.partial))
            elif isinstance(obj, ClassObj) and target.function.function.name == "__init__":
                init = self.index.method(obj.cls, "__init__")
                if init is not None and init.key == wanted:
                    if receiver is None or _compatible(self.index, Instance(obj.cls, None), receiver):
                        found.append(Site(caller, call, 1))
            elif isinstance(obj, Instance) and target.function.function.name == "__call__":
                method = self.index.method(obj.cls, "__call__")
                if method is not None and method.key == wanted:
                    found.append(Site(caller, call, 1))
        return found


def _launched_call(call: Call) -> Optional[Call]:
    """The call of its function that a launch call makes (``mp.spawn(f, args=(a,))``:
    ``f(<process index>, a)``), or None when ``call`` is no launch of a known launcher."""
    func = call.func
    launcher = LAUNCHERS.get(func.qualified or "") if isinstance(func, Name) else None
    if launcher is None:
        return None
    function = call.argument(launcher.function_keyword, launcher.function_position)
    if function is None:
        return None
    index = Call(Name("<process index>", call.span, PROCESS_INDEX), (), (), call.span)
    args: List[Value] = [index] * launcher.leading
    stars: Tuple[Value, ...] = ()
    passed = call.argument(launcher.args_keyword, launcher.args_position)
    if isinstance(passed, Seq):
        args.extend(passed.items)
    elif passed is not None:
        stars = (passed,)
    kwargs: Tuple[Tuple[str, Value], ...] = ()
    double_stars: Tuple[Value, ...] = ()
    named = call.kwarg(launcher.kwargs_keyword) if launcher.kwargs_keyword else None
    if isinstance(named, DictDisplay) and not named.stars and all(
        isinstance(k, Const) and isinstance(k.value, str) for k in named.keys
    ):
        kwargs = tuple((k.value, v) for k, v in zip(named.keys, named.values))  # type: ignore[union-attr]
    elif named is not None:
        double_stars = (named,)
    return Call(
        function, tuple(args), kwargs, call.span, star_args=bool(stars), star_kwargs=bool(double_stars),
        stars=stars, double_stars=double_stars, guards=call.guards,
    )


def _containers_holding(target: FunctionRef) -> Set[str]:
    """The names of the containers the function's module stores it in, by display or by
    item (``BUILDERS["short"] = {"train": build_train}``): calls through them
    (``BUILDERS[kind]["train"](...)``) are spelled as the container."""
    if target.function.nested or target.function.class_name is not None:
        return set()
    name = target.function.name
    found: Set[str] = set()
    for function in target.module.functions.values():
        for assign in function.assigns:
            if _holds_name(assign.value, name):
                found.add(assign.target.rsplit(".", 1)[-1])
        for item in function.item_assigns:
            if _holds_name(item.value, name):
                found.add(spelled(item.container))
    found.discard("")
    return found


def _holds_name(value: Value, name: str, depth: int = 0) -> bool:
    """``value`` is a display (dict, list, tuple) that holds the bare name, at any depth."""
    if depth > 8:
        return False
    if isinstance(value, DictDisplay):
        return any(_names(v, name) or _holds_name(v, name, depth + 1) for v in value.values)
    if isinstance(value, Seq):
        return any(_names(v, name) or _holds_name(v, name, depth + 1) for v in value.items)
    return False


def _names(value: Value, name: str) -> bool:
    return isinstance(value, Name) and value.dotted == name


def _compatible(index, found, wanted) -> bool:
    """The object a call is made on may be the target frame's receiver."""
    if not isinstance(found, Instance) or not isinstance(wanted, Instance):
        return found == wanted or not isinstance(found, Instance)
    keys = {item.key for item in index.mro(found.cls)}
    return wanted.cls.key in keys or found.cls.key in {item.key for item in index.mro(wanted.cls)}
