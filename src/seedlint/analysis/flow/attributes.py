"""Attributes and receivers: ``self.x`` from every assignment in the class's MRO, class
attributes, properties, dataclass fields, attributes a library base class stores
(``VisionDataset.transform``, Lightning's ``hparams``), argparse defaults, assignments made
from outside the class.
"""

from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Set, Tuple

from seedlint.analysis import library
from seedlint.analysis.documented_commands import positional_flag, script_paths
from seedlint.analysis.focus import importers
from seedlint.span import contains
from seedlint.analysis.index import ClassRef, ExternalRef, FunctionRef
from seedlint.analysis.objects import (
    COMMAND_LINE,
    NONE,
    NOTHING,
    UNKNOWN,
    UNKNOWN_SET,
    ArgsObj,
    ClassObj,
    Constant,
    DictObj,
    DocumentedConstant,
    Entry,
    External,
    ExternalInstance,
    Frame,
    FromCommandLine,
    FunctionObj,
    HParams,
    Instance,
    MethodOf,
    ModuleObj,
    Obj,
    OptionConstant,
    SeqObj,
    SuperObj,
    Values,
)
from seedlint.facts.model import (
    EXCEPT,
    MODULE_CODE,
    Assign,
    Attr,
    Call,
    Compare,
    Const,
    Function,
    Guard,
    ModuleFacts,
    Name,
    Value,
)
from seedlint.analysis.flow.shared import (
    _before,
    _inside,
    method_receiver,
    names_read,
    _option_dest,
    _same_parser,
    _group_of,
    _is_classmethod,
    _spelled,
    _is_dataclass,
    _is_super_init,
    _constant_strings,
    union,
)


MAX_PARENT_PARSERS = 4
"""Levels of ``parents=[...]`` followed from a parser; a guard against cycles in odd code."""


class AttributesMixin:
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
        if isinstance(obj, ExternalInstance) and obj.qualified in library.ATTRIBUTE_NAMESPACES and not name.startswith("__"):
            found = self._namespace_attribute(obj, name)
            if found is not None:
                return found
        if isinstance(obj, ExternalInstance):
            held = library.LIBRARY_ATTRIBUTES.get(obj.qualified, {}).get(name)
            if held is not None:
                argument = obj.site.call.argument(*held)
                return self.eval(argument, obj.site.frame) if argument is not None else frozenset({NONE})
            return frozenset({MethodOf(obj, name)})
        if isinstance(obj, ArgsObj) and not obj.pair:
            return self._parsed_attribute(obj, name)
        if isinstance(obj, HParams):
            return self.param(obj.init_frame, name) if obj.holds(name) else UNKNOWN_SET
        if isinstance(obj, DictObj) and obj.attributes and not name.startswith("__"):
            keys = {e.key for e in self.dict_entries(obj)}
            if name in keys or Entry.ANY in keys or obj.open:
                return self.item(frozenset({obj}), Const(name), None)
            return frozenset({MethodOf(obj, name)})  # ``cfg.get``, ``cfg.items``
        if isinstance(obj, (DictObj, SeqObj, Constant, FunctionObj, MethodOf)):
            return frozenset({MethodOf(obj, name)})
        return UNKNOWN_SET

    def _parsed_attribute(self, parsed: ArgsObj, name: str) -> Values:
        """An attribute of the namespace ``parse_args()`` returns: the option's values, and
        what the code stores into it (``args.workers = 0``). A store that surely runs right
        after the parse, before the namespace is handed to any call, replaces the option."""
        self._attribute_assignments()
        stored: List[Values] = []
        replaced = False
        for module, function, assign, head in self._assigned_attributes.get(name, ()):
            frame = self.function_frame(module, function)
            holder = assigned_head(head, assign, module, function)
            if not any(isinstance(o, ArgsObj) and o.key == parsed.key for o in self.eval(holder, frame)):
                continue
            stored.append(self.eval(assign.value, frame))
            replaced = replaced or self._replaces_parsed_option(function, assign, head, name, frame, parsed)
        if replaced:
            return union(stored)
        return union([self._argparse_default(parsed.parser, name)] + stored)

    def _replaces_parsed_option(self, function: Function, store: Assign, head: str, name: str, frame: Frame, parsed: ArgsObj) -> bool:
        """``args = parser.parse_args()`` then ``args.name = value`` in the same function,
        the store unconditional, outside loops and ``try`` bodies, its value not reading
        ``args.name``, and no call between the two given ``args``."""
        if store.guards or "." in head or any(_inside(loop.span, store.span) for loop in function.loops):
            return False
        if any(_inside(body, store.span) for body in function.try_bodies) or _reads_attribute(store.value, head, name):
            return False
        parses = [
            a for a in function.assigns
            if a.target == head and _before(a.span, store.span)
            and any(isinstance(o, ArgsObj) and o.key == parsed.key for o in self.eval(a.value, frame))
        ]
        if not parses:
            return False
        start = parses[-1].span
        return not any(
            _before(start, call.span) and _before(call.span, store.span) and _passes_name(call, head)
            for call in function.calls
        )

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
            if not self._made_on(call, parser, frame):
                continue
            if method == "set_defaults":
                if overridden is None:
                    overridden = self.eval(call.kwarg(dest), frame)
                continue
            command_line.append(self._command_line_values(call, frame))
            if call.kwarg("required") is not None and self.truth(call.kwarg("required"), frame) is not False:
                continue
            if _positional(call) and call.kwarg("nargs") is None:
                continue  # a positional argument without ``nargs`` must be given
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

    def argparse_dests(self, parser: ExternalInstance) -> List[str]:
        """The attributes ``parser.parse_args()`` sets: the dests of its options (and of its
        groups') and its ``set_defaults`` keys, in order."""
        found: List[str] = []
        for dest, calls in self._parser_calls().items():
            if any(self._made_on(call, parser, self.function_frame(module, function)) for module, function, call in calls):
                found.append(dest)
        return found

    def _made_on(self, call: Call, parser: ExternalInstance, frame: Frame) -> bool:
        """The ``add_argument``/``set_defaults`` call is made on ``parser``, one of its
        groups, or a parser it copies options from (``ArgumentParser(parents=[...])``)."""
        return any(self._holds_options_of(h, parser, frame) for h in self.eval(method_receiver(call.func), frame))

    def _holds_options_of(self, holder: Obj, parser: ExternalInstance, frame: Frame, depth: int = 0) -> bool:
        if _same_parser(holder, parser) or (isinstance(holder, ExternalInstance) and _group_of(holder, parser, self, frame)):
            return True
        parents = parser.site.call.kwarg("parents")
        if parents is None or depth >= MAX_PARENT_PARSERS:
            return False
        return any(
            isinstance(parent, ExternalInstance) and self._holds_options_of(holder, parent, frame, depth + 1)
            for parent in self.elements(self.eval(parents, parser.site.frame))
        )

    def _command_line_values(self, call: Call, frame: Frame) -> Values:
        """What a command line may store through one ``add_argument``."""
        action = self.constant(call.kwarg("action"), frame) if call.kwarg("action") is not None else None
        kind = action.value if action is not None else None
        if kind == "store_true":
            return frozenset({OptionConstant(True, _option_flag(call))})
        if kind == "store_false":
            return frozenset({OptionConstant(False, _option_flag(call))})
        if kind == "store_const" and call.kwarg("const") is not None:
            return self.eval(call.kwarg("const"), frame)
        choices = call.kwarg("choices")
        if choices is not None and kind in (None, "store") and call.kwarg("nargs") is None:
            values = self.elements(self.eval(choices, frame))
            if values and all(isinstance(v, Constant) for v in values):
                return frozenset(OptionConstant(v.value, _option_flag(call)) for v in values)
        if kind in (None, "store") and call.kwarg("nargs") is None:
            return frozenset({FromCommandLine(_option_flag(call))}) | self._documented_values(call, frame)
        return frozenset({COMMAND_LINE})

    def _documented_values(self, call: Call, frame: Frame) -> Values:
        """The values the project's documented commands pass to the option (one per distinct
        value, at its first place); unknown where a command passes a value it does not spell."""
        if self.documented_commands is None:
            return NOTHING
        flags = [a.value for a in call.args if isinstance(a, Const) and isinstance(a.value, str) and a.value.startswith("-")]
        if not flags:
            position = _positional_index(call, frame.function.function, frame.module)
            if position is None:
                return NOTHING
            flags = [positional_flag(position)]
        return self.documented_option_values(flags, _option_type(call.kwarg("type")), frame.module.path, _runs_as_main_only(call))

    def documented_option_values(self, flags: List[str], convert, module_path: str, main_only: bool = False) -> Values:
        """The values the project's documented commands that run ``module_path`` (or a file
        importing it) pass to an option spelled ``flags``, converted by ``convert``."""
        if self.documented_commands is None:
            return NOTHING
        found: Dict[object, Obj] = {}
        for passed in self.documented_commands.passed(flags):
            if passed.bare or not self._runs_module(passed, module_path, main_only):
                continue
            value = _converted(passed.text, convert)
            if value is _UNCONVERTED:
                found.setdefault(_UNCONVERTED, UNKNOWN)
            else:
                found.setdefault(value, DocumentedConstant(value, f"{passed.flag} {passed.text}", passed.file, passed.line))
        return frozenset(found.values())

    def _runs_module(self, passed, module_path: str, main_only: bool = False) -> bool:
        """The documented command's script is the module that defines the option, or a
        project file that imports it (through at most a few modules); only the module itself
        for an option added under ``if __name__ == "__main__":``, which importing it skips."""
        key = (passed.file, passed.script)
        scripts = self._scripts_memo.get(key)
        if scripts is None:
            paths = self.files.paths if self.files is not None else [module_path]
            scripts = self._scripts_memo[key] = frozenset(script_paths(passed, self.documented_commands.root, paths))
        if main_only:
            return module_path in scripts
        return bool(scripts & self._importers(module_path))

    def _importers(self, module_path: str) -> Set[str]:
        """The module and the project files that import it, directly or through others."""
        found = self._importers_memo.get(module_path)
        if found is None:
            others = importers({module_path}, self.files, {}) if self.files is not None else set()
            found = self._importers_memo[module_path] = {module_path} | others
        return found

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
        if name == "__subclasses__":
            return frozenset({MethodOf(ClassObj(cls), name)})
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
        if not found and name == "__name__" and "." not in cls.cls.qualname:
            return frozenset({Constant(cls.cls.name)})
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
                live = _live_stores(assigns, function)
                for frame in self.method_frames(FunctionRef(item.module, function), instance):
                    values = union(self.eval(a.value, frame) for a in live if self.guards_may_hold(a.guards, frame))
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

    def _namespace_attribute(self, namespace: ExternalInstance, name: str) -> Optional[Values]:
        """An attribute of a namespace object (``EasyDict()``, ``SimpleNamespace()``): the
        keyword it was built with, and every ``holder.name = value`` written where
        ``holder`` may be that object. None when nothing sets it."""
        found: List[Values] = []
        keyword = namespace.site.call.kwarg(name)
        if keyword is not None:
            found.append(self.eval(keyword, namespace.site.frame))
        if namespace.site.call.args:
            found.append(self._copied_attribute(namespace.site.call.args[0], namespace.site.frame, name))
        self._attribute_assignments()
        for module, function, assign, head in self._assigned_attributes.get(name, ()):
            frame = self.function_frame(module, function)
            holder = assigned_head(head, assign, module, function)
            if any(isinstance(o, ExternalInstance) and o.site.call is namespace.site.call for o in self.eval(holder, frame)):
                found.append(self.eval(assign.value, frame))
        if namespace.qualified in library.CONFIG_NODES:
            return self.config_node_attribute(namespace, name, union(found) if found else None)
        built_empty = not (namespace.site.call.args or namespace.site.call.kwargs or namespace.site.call.double_stars)
        if found and namespace.qualified in library.CONFIG_DICTS and built_empty:
            found.append(UNKNOWN_SET)  # ``__C = edict()`` filled in code, then merged from a file
        return union(found) if found else None

    def _copied_attribute(self, source: Value, frame: Frame, name: str) -> Values:
        """``EasyDict(args.__dict__)``, ``EasyDict(vars(args))``, ``EasyDict(cfg)``: the
        attribute or key ``name`` of what the namespace was made from."""
        if isinstance(source, Name) and source.dotted.endswith(".__dict__"):
            holder = Name(source.dotted[: -len(".__dict__")], source.span, source.qualified and source.qualified[: -len(".__dict__")], source.scope)
            return self.attribute(self.eval(holder, frame), name)
        if isinstance(source, Attr) and source.attr == "__dict__":
            return self.attribute(self.eval(source.value, frame), name)
        if isinstance(source, Call) and isinstance(source.func, Name) and source.func.dotted == "vars" and source.args:
            return self.attribute(self.eval(source.args[0], frame), name)
        found: List[Values] = []
        for value in self.eval(source, frame):
            if isinstance(value, DictObj):
                found.append(self.item(frozenset({value}), Const(name), None))
            elif isinstance(value, (ArgsObj, ExternalInstance)):
                found.append(self.attribute(frozenset({value}), name))
            else:
                found.append(UNKNOWN_SET)
        return union(found) if found else UNKNOWN_SET

    def _attribute_assignments(self) -> None:
        """``head.attribute = value`` in every analysed module, by attribute."""
        for module in self._new_modules("attribute assignments"):
            for function in module.functions.values():
                for assign in function.assigns:
                    head, _, attribute = assign.target.rpartition(".")
                    if head:
                        self._assigned_attributes.setdefault(attribute, []).append((module, function, assign, head))

    def _index_outside_assignments(self) -> Dict[str, list]:
        """``obj.name = value`` where ``obj`` is not the method's own receiver, by attribute."""
        for module in self._new_modules("outside"):
            for function in module.functions.values():
                receiver_name = function.params[0] if function.class_name and function.params else None
                for assign in function.assigns:
                    head, _, attribute = assign.target.rpartition(".")
                    if head and head.split(".", 1)[0] != receiver_name:
                        self._outside.setdefault(attribute, []).append((module, function, assign, head))
        return self._outside

    def _outside_assignments(self, instance: Instance, name: str) -> List[Values]:
        """``obj.name = value`` written outside the class, where ``obj`` may be ``instance``."""
        self._index_outside_assignments()
        found: List[Values] = []
        for module, function, assign, head in self._outside.get(name, ()):
            frame = self.function_frame(module, function)
            holder = Name(head, assign.span, None, function.qualname)
            if function.qualname == MODULE_CODE:
                holder = Name(head, assign.span, f"{module.name}.{head}" if module.name else head, "")
            if any(isinstance(o, Instance) and o.cls.key == instance.cls.key for o in self.eval(holder, frame)):
                found.append(self.eval(assign.value, frame))
        return found


_UNCONVERTED = object()


def _live_stores(assigns: List[Assign], function: Function) -> List[Assign]:
    """The assignments to one attribute whose value may outlive the method: not one that
    later assignments overwrite on every path (``self.aug = A`` then ``if c: self.aug = B
    else: self.aug = C``). A later assignment inside a loop or a ``try`` body the earlier one
    is not in may not run, and an ``if`` test counts as covered only by both of its arms."""
    ordered = sorted(assigns, key=lambda a: (a.span.line, a.span.col))
    may_skip = [loop.span for loop in function.loops] + function.try_bodies
    live = []
    for position, assign in enumerate(ordered):
        later = [
            other.guards for other in ordered[position + 1:]
            if not any(contains(block, other.span) and not contains(block, assign.span) for block in may_skip)
        ]
        if not _covered(tuple(assign.guards), later, 0):
            live.append(assign)
    return live


def _covered(guards: Tuple[Guard, ...], later: List[Tuple[Guard, ...]], depth: int) -> bool:
    """Every path through ``guards`` meets one of the ``later`` guard sets."""
    if any(_same_guards(guards, other) for other in later):
        return True
    if depth >= MAX_COVER_DEPTH:
        return False
    for other in later:
        if len(other) == len(guards) + 1 and _same_guards(guards, other[:-1]):
            test, truth = other[-1]
            if test is not EXCEPT and _covered(guards + ((test, not truth),), later, depth + 1):
                return _covered(guards + ((test, truth),), later, depth + 1)
    return False


def _same_guards(first: Tuple[Guard, ...], second: Tuple[Guard, ...]) -> bool:
    return len(first) == len(second) and all(a[0] is b[0] and a[1] == b[1] for a, b in zip(first, second))


MAX_COVER_DEPTH = 8
"""Nested ``if``/``elif`` arms followed when deciding that later assignments cover every path."""


def _positional(call: Call) -> bool:
    """``add_argument("config")``: a positional argument, named without a leading dash."""
    first = call.args[0] if call.args else None
    return isinstance(first, Const) and isinstance(first.value, str) and not first.value.startswith("-")


def _positional_index(call: Call, function: Function, module: ModuleFacts) -> Optional[int]:
    """Where a positional argument stands on the command line: the positional
    ``add_argument`` calls on the same parser before it, in the order they run, counting those
    a module-level helper adds to a parser it is given (``add_data_args(parser)``) where the
    helper is called. None for a parser with subcommands (a subcommand's name takes a
    position), a positional added under a condition, or a helper called from several places."""
    made = [c for f, c in module.all_calls() if isinstance(c.func, Name) and "." in c.func.dotted]
    if any(c.func.dotted.endswith(".add_subparsers") for c in made):
        return None
    receiver = call.func.dotted.rsplit(".", 1)[0]
    if receiver in function.params and not function.class_name:
        callers = [(caller, c) for caller, c in _helper_calls(module) if c.func.dotted == function.name]
        passed = _passed_name(callers[0][1], function, receiver) if len(callers) == 1 else None
        if passed is None:
            return None
        function, receiver = callers[0][0], passed
    sequence = _positional_sequence(function, receiver, module)
    return sequence.index(call) if sequence is not None and call in sequence else None


def _positional_sequence(function: Function, receiver: str, module: ModuleFacts) -> Optional[List[Call]]:
    """The positional ``add_argument`` calls on ``receiver`` in ``function`` and in the helpers
    it passes ``receiver`` to, in the order they run; None where the order is not decided."""
    helpers = {f.name: f for f in module.functions.values() if not f.class_name and not f.nested}
    sequence: List[Call] = []
    for c in sorted(function.calls, key=lambda c: (c.span.line, c.span.col)):
        if not isinstance(c.func, Name):
            continue
        if c.func.dotted == receiver + ".add_argument" and _positional(c):
            if c.guards:
                return None
            sequence.append(c)
            continue
        helper = helpers.get(c.func.dotted)
        given = [p for p in (helper.params if helper else ()) if _passed_name(c, helper, p) == receiver]
        if not given:
            continue
        added = [h for h in helper.calls if isinstance(h.func, Name) and h.func.dotted == given[0] + ".add_argument" and _positional(h)]
        if c.guards or any(h.guards for h in added):
            return None
        sequence.extend(sorted(added, key=lambda h: (h.span.line, h.span.col)))
    return sequence


def _helper_calls(module: ModuleFacts) -> Iterator[Tuple[Function, Call]]:
    for caller in module.functions.values():
        for c in caller.calls:
            if isinstance(c.func, Name) and "." not in c.func.dotted:
                yield caller, c


def _passed_name(call: Call, helper: Function, param: str) -> Optional[str]:
    """The plain name ``call`` passes for ``helper``'s parameter ``param``."""
    index = helper.params.index(param)
    value = call.kwarg(param)
    if value is None and index < len(call.args) and not call.star_args:
        value = call.args[index]
    return value.dotted if isinstance(value, Name) and "." not in value.dotted else None


def _option_flag(call: Call) -> str:
    """The option's first long flag as written (``--num_workers``), else its first flag."""
    flags = [a.value for a in call.args if isinstance(a, Const) and isinstance(a.value, str) and a.value.startswith("-")]
    long = [f for f in flags if f.startswith("--")]
    return (long or flags or [""])[0]


def _option_type(value: Optional[Value]):
    """The builtin ``type=`` of an option (``int``, ``float``, ``str``); None for another."""
    if value is None:
        return str
    builtins = {"builtins.int": int, "builtins.float": float, "builtins.str": str}
    if isinstance(value, Name) and (value.qualified or "builtins." + value.dotted) in builtins:
        return builtins[value.qualified or "builtins." + value.dotted]
    return None


def _converted(text: Optional[str], convert) -> object:
    if text is None or convert is None:
        return _UNCONVERTED
    try:
        return convert(text)
    except ValueError:
        return _UNCONVERTED


def _runs_as_main_only(call: Call) -> bool:
    """The call runs only when its module is the program's script: it sits under ``if
    __name__ == "__main__":``."""
    for test, truth in call.guards:
        if truth and isinstance(test, Compare) and test.op == "==":
            sides = (test.left, test.right)
            if any(isinstance(s, Name) and s.dotted == "__name__" for s in sides) and any(
                isinstance(s, Const) and s.value == "__main__" for s in sides
            ):
                return True
    return False


def assigned_head(head: str, assign: Assign, module: ModuleFacts, function: Function) -> Name:
    """The name ``head`` of ``head.attribute = value``, as read where the assignment is."""
    at_module = function.qualname == MODULE_CODE
    return Name(head, assign.span, f"{module.name}.{head}" if at_module and module.name else None, "" if at_module else function.qualname)


def _reads_attribute(value: Value, head: str, name: str) -> bool:
    """The expression reads ``head.name`` (or all of ``head``) somewhere."""
    return any(n.dotted == head or n.dotted == f"{head}.{name}" or n.dotted.startswith(f"{head}.{name}.") for n in names_read(value))


def _passes_name(call: Call, head: str) -> bool:
    """The call is given ``head`` itself (``train(args)``, ``vars(args)``, ``f(*args)``)."""
    given = list(call.args) + [v for _, v in call.kwargs] + list(call.stars) + list(call.double_stars)
    return any(isinstance(v, Name) and v.dotted == head for v in given)
