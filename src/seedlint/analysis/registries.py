"""Registries: the classes a name-keyed lookup may return.

Two shapes are followed:

- a module-level dict (``DATASETS = {"voc": VOC}``) and everything stored into it anywhere
  (``DATASETS["coco"] = COCO``, also from inside a registering decorator, whose stored
  value the value flow follows to the decorated class);
- a registry object (mmengine's, fvcore's, detectron2's or a project's own ``Registry``
  class) with ``@REG.register_module()`` / ``@REG.register()`` decorators and
  ``REG.register_module(module=C)`` calls, looked up with ``REG.get(name)``, ``REG[name]``,
  ``REG.build(cfg)`` or ``build_from_cfg(cfg, REG)``.

Registrations live in modules nothing else imports, so the project files that spell the
registry's variable name are parsed for them (at most ``MAX_FILES``).
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from seedlint.analysis import library
from seedlint.analysis.callsites import module_words
from seedlint.analysis.config_files import config_where
from seedlint.analysis.index import ClassRef, FunctionRef
from seedlint.analysis.objects import (
    UNKNOWN,
    UNKNOWN_SET,
    ClassObj,
    Constant,
    DictObj,
    Entry,
    ExternalInstance,
    Frame,
    FunctionObj,
    Instance,
    Obj,
    Site,
    Values,
)
from seedlint.facts.model import MODULE_CODE, Call, ConfigConst, Const, Function, ModuleFacts, Name, Subscript, Value

MAX_FILES = 200
"""Project files parsed to find what is registered into one registry."""

Member = Tuple[Obj, Optional[str]]
"""A registered class or function, and the name it is registered under (None: its own)."""


class Registries:
    def __init__(self, flow) -> None:
        self.flow = flow
        self.index = flow.index
        self._members: Dict[tuple, Tuple[List[Member], bool]] = {}
        self._stored: Dict[Tuple[str, str], List[Entry]] = {}
        self._keeping: Dict[tuple, bool] = {}
        self._made: Dict[tuple, Call] = {}

    # ------------------------------------------------------------------ registry objects
    def is_registry(self, obj: Obj) -> bool:
        if isinstance(obj, ExternalInstance):
            return "Registry" in obj.qualified.rsplit(".", 1)[-1]
        if isinstance(obj, Instance):
            return any("Registry" in item.cls.name or self._keeps_by_key(item) for item in self.index.mro(obj.cls))
        return False

    def _keeps_by_key(self, cls: ClassRef) -> bool:
        """A project class that behaves as a registry, whatever it is called: one of its
        methods (or a decorator a method returns) stores what it is given into a mapping
        it holds, ``self.classes[name] = cls``."""
        found = self._keeping.get(cls.key)
        if found is None:
            prefix = cls.cls.qualname + "."
            found = self._keeping[cls.key] = any(
                _stores_a_parameter(function)
                for qualname, function in cls.module.functions.items()
                if qualname.startswith(prefix) and function.item_assigns
            )
        return found

    def is_lookup(self, function: Function) -> bool:
        """A registry method that returns what the mapping holds under a key."""
        return function.name in library.REGISTRY_LOOKUPS or any(_reads_held_mapping(value) for value in function.returns)

    def lookup(self, registry: Obj, key: Value, frame: Frame) -> Values:
        """``REG.get(key)`` / ``REG[key]``: the classes registered under ``key``."""
        constant = self.flow.constant(key, frame)
        name = constant.value if constant is not None and isinstance(constant.value, str) else None
        members, complete = self.members(registry)
        if name is None:
            members = self._asked_for(members)
        label = None if name is not None else "one of the classes registered in the registry, picked by a name known at run time"
        found: Set[Obj] = {
            ClassObj(obj.cls, label) if isinstance(obj, ClassObj) and label else obj
            for obj, registered in members if name is None or _named(obj, registered) == name
        }
        if not complete or (name is not None and not found):
            found.add(UNKNOWN)
        return frozenset(found)

    def build(self, registries: Values, config: Optional[Value], frame: Frame, site: Site) -> Values:
        """``REG.build(cfg)`` / ``build_from_cfg(cfg, REG)``: an object of the registered class
        the config's ``type`` names, built with the config's other keys (as the builders do:
        ``cls(**args)``). A config the analysis cannot read builds any registered class, with
        arguments unknown."""
        found: Set[Obj] = set()
        via = (frame.module, site.call)
        configs = self.flow.eval(config, frame) if config is not None else UNKNOWN_SET
        for registry in registries:
            if not self.is_registry(registry):
                found.add(UNKNOWN)
                continue
            members, complete = self.members(registry)
            for cfg in configs:
                found |= self._built_from(cfg, members, complete, via, frame)
        return frozenset(found) or UNKNOWN_SET

    def _built_from(self, cfg: Obj, members: List[Member], complete: bool, via, frame: Frame) -> Set[Obj]:
        entries = [e for e in self.flow.dict_entries(cfg) if not e.spread] if isinstance(cfg, DictObj) and not cfg.open else None
        named = [e for e in entries if e.key == "type"] if entries is not None else []
        if not named:
            members = self._asked_for(members)
            label = "one of the classes registered in the registry, picked by the config" if len(members) > 1 else None
            found: Set[Obj] = {Instance(obj.cls, None, via, chosen=label) if isinstance(obj, ClassObj) else UNKNOWN for obj, _ in members}
            return found | ({UNKNOWN} if not complete else set())
        found = set()
        for kind in self.flow.eval(named[0].value, named[0].frame):
            picked = [obj for obj, registered in members if isinstance(kind, Constant) and _named(obj, registered) == kind.value]
            if not picked:
                found.add(UNKNOWN)
            for obj in picked:
                if not isinstance(obj, ClassObj):
                    found.add(UNKNOWN)
                    continue
                arguments = [e for e in entries if e.key != "type" and isinstance(e.key, str)]
                made, made_frame = self._construction(via[1], arguments, frame)
                found.add(Instance(obj.cls, Site(made_frame, made), via, chosen=self._named_in_file(named[0].value, kind.value)))
        return found

    def _asked_for(self, members: List[Member]) -> List[Member]:
        """The members a name known only at run time may pick: those the project's text gives
        as a value somewhere (``analysis.name_mentions``), or all when it gives none."""
        given = self.flow.given_names
        if given is None:
            return members
        asked = [(obj, registered) for obj, registered in members
                 if (_named(obj, registered) is None or given.gives(_named(obj, registered), registered is not None))]
        return asked or members

    def _named_in_file(self, value: Value, name: str) -> Optional[str]:
        """``type='X' at configs/x.py:12`` when a configuration file names the class."""
        if not isinstance(value, ConfigConst):
            return None
        return f"`type={name!r}` at {config_where(value.place, self.index.project_root)}"

    def _construction(self, call: Call, arguments: List[Entry], frame: Frame) -> Tuple[Call, Frame]:
        """``cls(**args)`` spelled at the builder's call: the config's keys as keywords, read
        in the frame the config was written in."""
        frames = {id(e.frame): e.frame for e in arguments}
        written_in = next(iter(frames.values())) if len(frames) == 1 else frame
        memo = (id(call), tuple(id(e.value) for e in arguments))
        made = self._made.get(memo)
        if made is None:
            made = self._made[memo] = Call(call.func, (), tuple((e.key, e.value) for e in arguments), call.span)
        return made, written_in

    def members(self, registry: Obj) -> Tuple[List[Member], bool]:
        key = registry.key
        found = self._members.get(key)
        if found is None:
            self._members[key] = ([], False)
            found = self._members[key] = self._find_members(registry)
        return found

    def _find_members(self, registry: Obj) -> Tuple[List[Member], bool]:
        names = self._variable_names(registry)
        if not names:
            return [], False
        modules, complete = self._modules(names, registry.site.frame.module)
        members: List[Member] = []
        seen: Set[tuple] = set()

        def add(obj: Obj, name: Optional[str]) -> None:
            if (obj.key, name) not in seen:
                seen.add((obj.key, name))
                members.append((obj, name))

        for module in modules:
            frame = self.flow.module_frame(module)
            for definition, ref in _definitions(module):
                for decorator in definition.decorators:
                    receiver = _registering_receiver(decorator, any_method=True)
                    if receiver is None or receiver.dotted.rsplit(".", 1)[-1] not in names:
                        continue
                    if registry in self.flow.eval(receiver, frame):
                        add(ref, _registered_name(decorator))
            for function in module.functions.values():
                caller = self.flow.function_frame(module, function)
                for call in function.calls:
                    receiver = _registering_receiver(call, decorator=False)
                    if receiver is None or receiver.dotted.rsplit(".", 1)[-1] not in names:
                        continue
                    if registry not in self.flow.eval(receiver, caller):
                        continue
                    for value in (call.kwarg("module"), call.kwarg("obj"), call.kwarg("cls"), *call.args):
                        if value is None:
                            continue
                        for obj in self.flow.eval(value, caller):
                            if isinstance(obj, (ClassObj, FunctionObj)):
                                add(obj, _registered_name(call))
        return members, complete

    def _variable_names(self, registry: Obj) -> Set[str]:
        """The module-level names the registry object is stored under."""
        site = registry.site if isinstance(registry, (ExternalInstance, Instance)) else None
        if site is None:
            return set()
        module = site.frame.module
        return {a.target for a in module.module_code.assigns if a.value is site.call and "." not in a.target}

    def _modules(self, names: Set[str], home: Optional[ModuleFacts] = None) -> Tuple[List[ModuleFacts], bool]:
        """Analysed modules, plus project files that spell one of ``names`` and can import
        from ``home`` (where the registry is defined)."""
        modules: Dict[str, ModuleFacts] = dict(self.index.modules)
        complete = True
        files = self.flow.files
        if files is not None:
            importing = set(files.mentioning(module_words(home))) if home is not None else None
            fresh = [
                path for path in files.mentioning(sorted(names))
                if path not in modules and (importing is None or path in importing)
            ]
            if len(fresh) > MAX_FILES:
                complete = False
                fresh = fresh[:MAX_FILES]
            for path in fresh:
                loaded = self.index.load_file(path)
                if loaded is not None:
                    modules[loaded.path] = loaded
        return list(modules.values()), complete

    # ------------------------------------------------------------------ dicts
    def stored_items(self, origin: Tuple[str, str]) -> List[Entry]:
        """Items stored into the module-level dict ``origin`` (path, name) anywhere:
        ``NAME[key] = value`` and ``NAME.update(key=value)``."""
        found = self._stored.get(origin)
        if found is not None:
            return found
        self._stored[origin] = []
        path, name = origin
        entries: List[Entry] = []
        home = self.index.modules.get(path)
        modules, _ = self._modules({name}, home)
        for module in modules:
            for function in module.functions.values():
                relevant = [i for i in function.item_assigns if isinstance(i.container, Name) and i.container.dotted.rsplit(".", 1)[-1] == name]
                if not relevant:
                    continue
                frame = self.flow.function_frame(module, function)
                for item in relevant:
                    holders = self.flow.eval(item.container, frame)
                    if any(isinstance(h, DictObj) and h.origin == origin for h in holders):
                        constant = self.flow.constant(item.key, frame)
                        decorated = self._decorated_entries(module, function, item) if constant is None else None
                        if decorated is not None:
                            entries.extend(decorated)
                            continue
                        key = constant.value if constant is not None else Entry.ANY
                        entries.append(Entry(item.value, frame, key))
        self._stored[origin] = entries
        return entries


    def _decorated_entries(self, module: ModuleFacts, function: Function, item) -> Optional[List[Entry]]:
        """``def register(name): def decorator(cls): REG[name] = cls; ...`` stores, for each
        definition decorated with ``@register("x")``, that definition under ``"x"``; None
        when the item is not that shape or no definition is decorated so."""
        key, value = item.key, item.value
        if not (isinstance(key, Name) and isinstance(value, Name) and "." not in key.dotted and function.params):
            return None
        factory = module.functions.get(key.scope)
        if factory is None or "." in factory.qualname or not function.qualname.startswith(factory.qualname + ".<locals>."):
            return None
        if key.dotted not in factory.params or value.dotted != function.params[0]:
            return None
        position = factory.params.index(key.dotted)
        modules, _ = self._modules({factory.name}, module)
        entries: List[Entry] = []
        for other in modules:
            frame = self.flow.module_frame(other)
            for definition, _ in _definitions(other):
                for decorator in definition.decorators:
                    if not isinstance(decorator, Call):
                        continue
                    if not any(isinstance(f, FunctionObj) and f.function.function is factory for f in self.flow.eval(decorator.func, frame)):
                        continue
                    argument = decorator.argument(key.dotted, position)
                    constant = self.flow.constant(argument, frame) if argument is not None else None
                    named = Name(definition.name, definition.span, f"{other.name}.{definition.name}")
                    entries.append(Entry(named, frame, constant.value if constant is not None else Entry.ANY))
        return entries or None


def _definitions(module: ModuleFacts):
    for cls in module.classes.values():
        if cls.decorators and "." not in cls.qualname:
            yield cls, ClassObj(ClassRef(module, cls))
    for function in module.functions.values():
        if function.decorators and function.qualname != MODULE_CODE and "." not in function.qualname:
            yield function, FunctionObj(FunctionRef(module, function))


def _registering_receiver(value: Value, decorator: bool = True, any_method: bool = False) -> Optional[Name]:
    """``REG`` in ``REG.register_module(...)`` or ``@REG.register``; with ``any_method``,
    in a decorator ``@REG.anything`` (the caller checks that ``REG`` is the registry)."""
    func = value.func if isinstance(value, Call) else value
    if not isinstance(func, Name) or "." not in func.dotted:
        return None
    method = func.dotted.rsplit(".", 1)[-1]
    if not any_method and not method.startswith(library.REGISTERING_METHODS):
        return None
    head = func.dotted.rsplit(".", 1)[0]
    qualified = func.qualified.rsplit(".", 1)[0] if func.qualified else None
    return Name(head, func.span, qualified, func.scope)


def _registered_name(value: Value) -> Optional[str]:
    if not isinstance(value, Call):
        return None
    for key in ("name", "key"):
        named = value.kwarg(key)
        if isinstance(named, Const) and isinstance(named.value, str):
            return named.value
    if value.args and isinstance(value.args[0], Const) and isinstance(value.args[0].value, str):
        return value.args[0].value
    return None


def _named(obj: Obj, registered: Optional[str]) -> Optional[str]:
    if registered is not None:
        return registered
    if isinstance(obj, ClassObj):
        return obj.cls.cls.name
    if isinstance(obj, FunctionObj):
        return obj.function.function.name
    return None


def _stores_a_parameter(function: Function) -> bool:
    """``self.held[key] = given``: an item stored on the object, the value one of the
    function's parameters."""
    return any(
        isinstance(item.container, Name) and item.container.dotted.startswith("self.")
        and isinstance(item.value, Name) and item.value.dotted in function.params
        for item in function.item_assigns
    )


def _reads_held_mapping(value: Value) -> bool:
    """``self.held[key]`` or ``self.held.get(key)``."""
    if isinstance(value, Subscript):
        return isinstance(value.value, Name) and value.value.dotted.startswith("self.")
    if isinstance(value, Call) and isinstance(value.func, Name) and value.args:
        head, _, method = value.func.dotted.rpartition(".")
        return method == "get" and head.startswith("self.")
    return False
