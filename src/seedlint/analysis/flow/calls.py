"""Calls: project functions and classes (a frame per call), library callables the flow
sees through (``library`` tables: pass-throughs, ``partial``, ``dict``, ``super``), and
methods of dicts, sequences and registries.
"""

from __future__ import annotations

import os
import re
from typing import List, Optional, Set

from seedlint.analysis import inputs, library
from seedlint.analysis.config_files import (
    FILE_PARSERS,
    INSTANTIATE,
    OMEGACONF_CREATE,
    OMEGACONF_LOAD,
    OMEGACONF_MERGE,
    HYDRA_COMPOSE,
    HYDRA_INITIALIZE,
    HYDRA_INITIALIZE_DIR,
    as_config_value,
    candidate_paths,
    composed,
    configured_call,
    loaded_file,
)
from seedlint.analysis.python_configs import CONFIG_FROMFILE, MAX_CONFIGS, config_candidates, read_config
from seedlint.analysis.index import ClassRef
from seedlint.knowledge import hf_datasets
from seedlint.analysis.objects import (
    NONE,
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
    Instance,
    MethodOf,
    ModuleObj,
    Obj,
    ParsedDataclasses,
    SeqObj,
    Site,
    SuperObj,
    Values,
)
from seedlint.facts.model import (
    Attr,
    BinOp,
    Call,
    Const,
    Name,
    Value,
)
from seedlint.analysis.flow.shared import (
    MAX_VALUES,
    _spelled,
    _closed_sequence,
    union,
)


MAX_JOINED_PATHS = 64
"""Paths one ``os.path.join`` of several known parts may make; more is unknown."""


STRING_METHODS = frozenset({
    "lower", "upper", "casefold", "capitalize", "title", "strip", "lstrip", "rstrip", "replace",
    "removeprefix", "removesuffix", "startswith", "endswith", "split", "rsplit",
})
"""``str`` methods the value flow computes for a constant string (they only read it)."""

class CallsMixin:
    def _call(self, call: Call, frame: Frame) -> Values:
        func = call.func
        if isinstance(func, Attr) and isinstance(func.value, Call) and self._is_super_call(func.value, frame):
            receiver = self._super(frame)
            callees = self.attribute(receiver, func.attr)
        else:
            callees = self._able_to_bind(self.eval(func, frame), call)
        if self.process_group_truth(call, frame):
            return frozenset({Constant(True)})  # ``is_dist = dist.is_initialized()`` after the group started
        return union(self.call_object(obj, Site(frame, call)) for obj in callees)

    def _able_to_bind(self, callees: Values, call: Call) -> Values:
        """Of the classes a call may build (``data_dict[args.data](root, size=s)``), those
        whose ``__init__`` accepts the arguments written: a class that would raise
        ``TypeError`` there is not what that call builds. When every one of them refuses,
        the call builds nothing, where each refuses by an ``__init__`` of its own that nothing
        (a class decorator, a ``__new__``) may bypass; else all of them are kept."""
        classes = [obj for obj in callees if isinstance(obj, ClassObj)]
        if not classes or call.star_args or call.star_kwargs:
            return callees
        refused = frozenset(obj for obj in classes if not self._accepts(obj.cls, call))
        if len(refused) < len(classes):
            return callees - refused
        return callees - refused if all(self._plainly_built(obj.cls) for obj in classes) else callees

    def _plainly_built(self, cls: ClassRef) -> bool:
        """Calling the class runs the ``__init__`` it defines itself, as written: no class
        decorator, no ``__new__`` in the project's part of its ancestry."""
        return "__init__" in cls.cls.methods and all(
            not item.cls.decorators and "__new__" not in item.cls.methods for item in self.index.mro(cls)
        )

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
        caller = site.frame
        if caller.function.key == obj.function.key and _key_of(caller.receiver) == _key_of(obj.receiver):
            # Direct recursion (a tree walk threading its state through every call) runs in
            # the caller's frame: its values are those of the calls from outside.
            return caller
        offset = 1 if obj.receiver is not None and self.receiver_param(obj.function) else 0
        return self.frame(obj.function, obj.receiver, Site(site.frame, site.call, offset, obj.partial))

    def _call_function(self, obj: FunctionObj, site: Site) -> Values:
        function = obj.function.function
        if obj.receiver is not None and self.registries.is_registry(obj.receiver):
            if function.name in library.REGISTRY_BUILDS:
                config = site.call.args[0] if site.call.args else None
                return self.registries.build(frozenset({obj.receiver}), config, site.frame, site)
            if site.call.args and self.registries.is_lookup(function):
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
        if qualified in library.PATH_JOINS and call.args and not (call.kwargs or call.star_args or call.star_kwargs):
            return self._joined_path(call, frame)
        if qualified in library.CONVERSIONS and len(call.args) == 1 and not call.kwargs:
            return frozenset(_converted(value, library.CONVERSIONS[qualified]) for value in self.eval(call.args[0], frame))
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
            return self._modules_matching(call.args[0], frame)
        if qualified in library.NAMESPACE_LOOKUPS:
            if qualified == "eval" and call.args:
                return self._eval_lookup(call.args[0], frame, call.span)
            if qualified == "vars" and call.args:
                return self._namespace_dict(call.args[0], frame)
            return frozenset({MethodOf(ModuleObj(frame.module), "__dict__")})
        if qualified in library.SUPER:
            return self._super(frame)
        if qualified in library.TYPE and len(call.args) == 3:
            return self._runtime_class(call, frame)
        if qualified in INSTANTIATE and call.args:
            return self._instantiate(site)
        if qualified in OMEGACONF_LOAD and call.args:
            return self._configuration_file(call.args[0], frame)
        if qualified in FILE_PARSERS and call.args:
            path = self._opened_path(call.args[0], frame)
            return self._configuration_file(path, frame) if path is not None else UNKNOWN_SET
        if qualified in CONFIG_FROMFILE and call.args:
            return self._python_configuration(call.args[0], frame)
        if qualified in HYDRA_COMPOSE:
            return self._hydra_compose(call, frame)
        if qualified in OMEGACONF_CREATE:
            values = self.eval(call.args[0], frame) if call.args else frozenset({DictObj([], attributes=True)})
            return frozenset(DictObj(v.entries, v.open, v.origin, True) if isinstance(v, DictObj) else v for v in values)
        if qualified in OMEGACONF_MERGE:
            entries = [Entry(a, frame, Entry.ANY, spread=True) for a in call.args]
            return frozenset({DictObj(entries, open=call.star_args, attributes=True)})
        if qualified in library.REGISTRY_BUILDERS and len(call.args) >= 2:
            return self.registries.build(self.eval(call.args[1], frame), call.args[0], frame, site)
        return frozenset({ExternalInstance(qualified, site)})

    def _modules_matching(self, name: Value, frame: Frame) -> Values:
        """``import_module("data." + mode + "_dataset")``: the name is known but for one part,
        so the module is any of the package's modules whose name fits (a module that does
        not exist cannot be imported)."""
        parts = self._string_parts(name, frame)
        if parts is None or parts.count(None) != 1:
            return UNKNOWN_SET
        cut = parts.index(None)
        prefix, suffix = "".join(parts[:cut]), "".join(parts[cut + 1:])
        package_name, _, stem_prefix = prefix.rpartition(".")
        if "." in suffix or not package_name:
            return UNKNOWN_SET
        package = self.index.module_named(package_name, frame.module)
        if package is None or not package.path.endswith("__init__.py"):
            return UNKNOWN_SET
        inputs.read(os.path.dirname(package.path))
        try:
            files = sorted(os.listdir(os.path.dirname(package.path)))
        except OSError:
            return UNKNOWN_SET
        found: Set[Obj] = set()
        for file in files:
            stem = file[:-3]
            if not file.endswith(".py") or stem == "__init__" or not (stem.startswith(stem_prefix) and stem.endswith(suffix)):
                continue
            if len(stem) < len(stem_prefix) + len(suffix) + 1 or len(found) >= MAX_VALUES:
                continue
            module = self.index.module_named(f"{package_name}.{stem}", frame.module)
            if module is not None:
                found.add(ModuleObj(module))
        return frozenset(found) or UNKNOWN_SET

    def _namespace_dict(self, value: Value, frame: Frame) -> Values:
        """``vars(args)`` of a parsed command line: a dict with one item per option, each
        the option's value (``vars(args)["augment"]`` is what ``args.augment`` is). The
        attributes a program sets on the namespace later (``args.rank = ...``) are left
        out: such a dict is open."""
        found: List[Values] = []
        for obj in self.eval(value, frame):
            if isinstance(obj, ArgsObj) and not obj.pair:
                dests = self.argparse_dests(obj.parser)
                assigned = bool(self._assignments_on(value, frame))
                found.append(frozenset({DictObj([Entry(Attr(value, dest), frame, dest) for dest in dests], open=assigned)}))
            elif isinstance(obj, ModuleObj):
                found.append(frozenset({MethodOf(obj, "__dict__")}))
            else:
                found.append(UNKNOWN_SET)
        return union(found) if found else UNKNOWN_SET

    def _assignments_on(self, value: Value, frame: Frame) -> List[object]:
        """``name.attribute = ...`` in the function, for the local name ``value`` is (a
        namespace just parsed has none; one held elsewhere may have any)."""
        if isinstance(value, Call):
            return []
        if not isinstance(value, Name) or "." in value.dotted or value.qualified is not None:
            return [value]
        prefix = value.dotted + "."
        return [a for a in frame.function.function.assigns if a.target.startswith(prefix)]

    def _string_parts(self, value: Value, frame: Frame, depth: int = 0) -> Optional[List[Optional[str]]]:
        """A string built with ``+`` as its known pieces, None standing for an unknown one."""
        if depth > 8:
            return None
        if isinstance(value, BinOp) and value.op == "Add":
            left, right = self._string_parts(value.left, frame, depth + 1), self._string_parts(value.right, frame, depth + 1)
            return left + right if left is not None and right is not None else None
        if isinstance(value, Call) and isinstance(value.func, Attr) and value.func.attr == "format":
            return self._formatted_parts(value, frame, depth)
        if isinstance(value, Name) and value.qualified is None and "." not in value.dotted:
            function = frame.function.function
            assigned = self._bindings_of(function)[0].get(value.dotted, [])
            if len(assigned) == 1 and value.dotted not in function.params:  # ``name = "data." + mode``
                return self._string_parts(assigned[0].value, frame, depth + 1)
        constant = self.constant(value, frame)
        if constant is not None:
            return [constant.value] if isinstance(constant.value, str) else None
        return [None]

    def _formatted_parts(self, call: Call, frame: Frame, depth: int) -> Optional[List[Optional[str]]]:
        """``"datasets.{}".format(args.dataset)``: the template's text with each positional
        field's pieces; None for named fields, conversions, format specs or escaped braces."""
        template = call.func.value if isinstance(call.func, Attr) else None
        if not (isinstance(template, Const) and isinstance(template.value, str)) or call.kwargs or call.star_args or call.star_kwargs:
            return None
        pieces = re.split(r"\{(\d*)\}", template.value)
        if any("{" in text or "}" in text for text in pieces[0::2]):
            return None
        parts: List[Optional[str]] = []
        automatic = 0
        for position, piece in enumerate(pieces):
            if position % 2 == 0:
                parts.append(piece)
                continue
            index = int(piece) if piece else automatic
            automatic += 1
            if index >= len(call.args):
                return None
            inner = self._string_parts(call.args[index], frame, depth + 1)
            if inner is None:
                return None
            parts += inner
        return parts

    def _opened_path(self, handle: Value, frame: Frame) -> Optional[Value]:
        """The path of ``open(path)``, written in place or bound once to a local name (``with
        open(args.config) as f``); None for any other file object."""
        if isinstance(handle, Name) and "." not in handle.dotted:
            function = frame.function.function  # a local, or a global of the module code it is read in
            assigned = self._bindings_of(function)[0].get(handle.dotted, [])
            if len(assigned) != 1 or handle.dotted in function.params:
                return None
            handle = assigned[0].value
        if isinstance(handle, Call) and isinstance(handle.func, Attr) and handle.func.attr == "__enter__":
            handle = handle.func.value  # ``with open(path) as f`` binds ``open(path).__enter__()``
        if isinstance(handle, Call) and isinstance(handle.func, Name) and handle.func.dotted == "open" and handle.func.qualified in (None, "open", "builtins.open"):
            return handle.argument("file", 0)
        return None

    def _joined_path(self, call: Call, frame: Frame) -> Values:
        """``os.path.join("configs", name)`` of known strings: each path it may make;
        ``os.path.join(path)`` is the path itself (a documented value keeps its place).
        Unknown where a part is not a known string."""
        if len(call.args) == 1:
            return self.eval(call.args[0], frame)
        paths = [""]
        for argument in call.args:
            parts = self.eval(argument, frame)
            if not parts or not all(isinstance(p, Constant) and isinstance(p.value, str) for p in parts):
                return UNKNOWN_SET
            paths = [os.path.join(path, part.value) if path else part.value for path in paths for part in parts]
            if len(paths) > MAX_JOINED_PATHS:
                return UNKNOWN_SET
        return frozenset(Constant(path) for path in paths)

    def _configuration_file(self, path: Value, frame: Frame) -> Values:
        """``OmegaConf.load(path)``: the YAML file the path names, for each path it may be
        (a relative path from the project root or the script's folder); unknown where the
        path is not known or names no readable file."""
        found: List[Values] = []
        names = self.eval(path, frame)
        documented = any(isinstance(name, DocumentedConstant) for name in names)
        for name in names:
            if isinstance(name, Constant) and name.value is None:
                continue  # ``open(None)`` raises: no program runs with that value
            if isinstance(name, FromCommandLine) and documented:
                continue  # the programs the project documents are its programs, as for Hydra's files
            if not (isinstance(name, Constant) and isinstance(name.value, str)):
                found.append(UNKNOWN_SET)
                continue
            content = None
            for candidate in candidate_paths(name.value, frame.module.path, self.index.project_root):
                if candidate not in self._files:
                    self._files[candidate] = loaded_file(candidate) if os.path.isfile(candidate) else None
                content = self._files[candidate]
                if content is not None:
                    break
            found.append(self.eval(content, frame) if content is not None else UNKNOWN_SET)
        return union(found) if found else UNKNOWN_SET

    def _hydra_compose(self, call: Call, frame: Frame) -> Values:
        """``with initialize(config_path="conf"): cfg = compose(config_name="train",
        overrides=[...])``: the configuration Hydra composes there. The config folder comes
        from the ``initialize`` (or ``initialize_config_dir``) call of the same function or
        module; ``config_path`` is relative to the file that calls it."""
        name = self.constant(call.argument("config_name", 0), frame) if call.argument("config_name", 0) is not None else None
        folder = self._initialized_folder(frame)
        if folder is None or name is None or not isinstance(name.value, str):
            return UNKNOWN_SET
        overrides: List[str] = []
        given = call.argument("overrides", 1)
        if given is not None:
            for value in self.eval(given, frame):
                if not isinstance(value, SeqObj) or value.open:
                    return UNKNOWN_SET
                for entry in value.entries:
                    text = self.constant(entry.value, entry.frame)
                    if text is None or not isinstance(text.value, str):
                        return UNKNOWN_SET
                    overrides.append(text.value)
        key = ("hydra", folder, name.value, tuple(overrides))
        if key not in self._files:
            self._files[key] = composed(folder, name.value, tuple(overrides))
        return self.eval(self._files[key], frame)

    def _initialized_folder(self, frame: Frame) -> Optional[str]:
        module = frame.module
        for function in (frame.function.function, module.module_code):
            for made in function.calls:
                names = self.callee_names(made, self.function_frame(module, function))
                if names & HYDRA_INITIALIZE:
                    path = self.constant(made.argument("config_path", 0), frame) if made.argument("config_path", 0) is not None else None
                    if path is None or not isinstance(path.value, str):
                        return None
                    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(module.path)), path.value))
                if names & HYDRA_INITIALIZE_DIR:
                    path = self.constant(made.argument("config_dir", 0), frame) if made.argument("config_dir", 0) is not None else None
                    return path.value if path is not None and isinstance(path.value, str) and os.path.isabs(path.value) else None
        return None

    def _python_configuration(self, path: Value, frame: Frame) -> Values:
        """``Config.fromfile(path)``: the Python configuration file the path names, merged
        onto its ``_base_`` files. A path the program is given at run time is any of the
        project's configuration files, when it has at most ``MAX_CONFIGS`` (else unknown)."""
        found: List[Values] = []
        for name in self.eval(path, frame):
            if isinstance(name, Constant) and isinstance(name.value, str):
                paths = [p for p in candidate_paths(name.value, frame.module.path, self.index.project_root) if os.path.isfile(p)][:1]
            else:
                root = self.index.project_root
                if root not in self._config_candidates:
                    self._config_candidates[root] = config_candidates(root, MAX_CONFIGS)
                paths = self._config_candidates[root]
                if len(paths) > MAX_CONFIGS:
                    found.append(UNKNOWN_SET)
                    continue
            for candidate in paths:
                key = ("python", candidate)
                if key not in self._files:
                    tree = read_config(candidate, self._config_modules)
                    self._files[key] = as_config_value(tree) if isinstance(tree, dict) else None
                content = self._files[key]
                found.append(self.eval(content, frame) if content is not None else UNKNOWN_SET)
            if not paths:
                found.append(UNKNOWN_SET)
        return union(found) if found else UNKNOWN_SET

    def _instantiate(self, site: Site) -> Values:
        """``hydra.utils.instantiate(config, **overrides)``: what the config's ``_target_``
        builds from its other keys and the call's keywords. A config the analysis cannot see
        (or with ``_partial_``) gives unknown."""
        call, frame = site.call, site.frame
        found: List[Values] = []
        for config in self.eval(call.args[0], frame):
            if not isinstance(config, DictObj):
                found.append(UNKNOWN_SET)
                continue
            entries = self.dict_entries(config)
            keyed = [(e.key, e) for e in entries if not e.spread and isinstance(e.key, str)]
            targets = [e for key, e in keyed if key == "_target_"]
            if not targets or any(key == "_partial_" for key, _ in keyed) or config.open:
                found.append(UNKNOWN_SET)
                continue
            for target in self.eval(targets[0].value, targets[0].frame):
                if not (isinstance(target, Constant) and isinstance(target.value, str)):
                    found.append(UNKNOWN_SET)
                    continue
                memo = (id(call), config.key, target.value)
                made = self._instantiated.get(memo)
                if made is None:
                    made = self._instantiated[memo] = configured_call(call, target.value, [(k, e.value) for k, e in keyed])
                found.append(self._call(made, frame))
        return union(found) if found else UNKNOWN_SET

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
            if name in ("copy", "keys"):
                return frozenset({receiver})  # ``"seed" in cfg.keys()`` asks the dict itself
            if name == "values":
                return frozenset({SeqObj((e for e in self.dict_entries(receiver)), receiver.open, indexable=False)})
            return UNKNOWN_SET
        if isinstance(receiver, ExternalInstance) and name in library.RETURNS_RECEIVER:
            return frozenset({receiver})
        if isinstance(receiver, ExternalInstance) and hf_datasets.from_hf_datasets(receiver.qualified):
            if name in hf_datasets.TRANSFORM_RETURNING:
                return frozenset({ExternalInstance(hf_datasets.DATASET_CLASS, site)})
            if name in hf_datasets.FORMAT_KEEPING:
                return frozenset({receiver})
        if isinstance(receiver, ExternalInstance) and receiver.qualified in library.CONFIG_NODES and name in library.COPIES_OF_CONFIG_NODES:
            return frozenset({receiver})
        if isinstance(receiver, ExternalInstance) and receiver.qualified in library.ARGUMENT_PARSERS:
            if name in ("parse_args", "parse_known_args"):
                return frozenset({ArgsObj(receiver, pair=name == "parse_known_args")})
        if isinstance(receiver, ExternalInstance) and receiver.qualified in library.DATACLASS_ARGUMENT_PARSERS:
            if name == "parse_args_into_dataclasses":
                return frozenset({ParsedDataclasses(receiver)})
        if isinstance(receiver, SeqObj) and name in ("copy", "__iter__"):
            return frozenset({receiver})
        if isinstance(receiver, Constant) and isinstance(receiver.value, str) and name in STRING_METHODS:
            return self._string_method(receiver, name, call, frame)
        if isinstance(receiver, ClassObj) and name == "__subclasses__":
            return frozenset({self._subclasses(receiver.cls)})
        if self.registries.is_registry(receiver):
            if name in library.REGISTRY_LOOKUPS and call.args:
                return self.registries.lookup(receiver, call.args[0], frame)
            if name in library.REGISTRY_BUILDS:
                config = call.args[0] if call.args else None
                return self.registries.build(frozenset({receiver}), config, frame, site)
        if isinstance(receiver, ModuleObj) and name == "__dict__":
            return UNKNOWN_SET
        return UNKNOWN_SET

    def _string_method(self, receiver: Constant, name: str, call: Call, frame: Frame) -> Values:
        """``name.lower()``, ``path.endswith(".json")``: what the method gives for a string
        constant, when its arguments are constants too."""
        if call.kwargs or call.star_args or call.star_kwargs:
            return UNKNOWN_SET
        arguments = [self.constant(argument, frame) for argument in call.args]
        if any(argument is None for argument in arguments):
            return UNKNOWN_SET
        try:
            result = getattr(receiver.value, name)(*(argument.value for argument in arguments))
        except (AttributeError, TypeError, ValueError):
            return UNKNOWN_SET
        if isinstance(result, list):
            return frozenset({SeqObj([Entry(Const(part), frame) for part in result])})
        return frozenset({receiver.with_value(result)})

    def _subclasses(self, cls: ClassRef) -> SeqObj:
        """``Base.__subclasses__()``: the project classes that name ``Base`` among their bases
        directly, each read from its module (a registry built from them)."""
        found = self._subclass_lists.get(cls.key)
        if found is None:
            found = self._subclass_lists[cls.key] = self._find_subclasses(cls)
        return found

    def _find_subclasses(self, cls: ClassRef) -> SeqObj:
        entries = []
        for path in self.files.mentioning([cls.cls.name]) if self.files is not None else ():
            self.index.load_file(path)
        for module in list(self.index.modules.values()):
            for other in module.classes.values():
                if "." in other.qualname or not other.bases:
                    continue
                ref = ClassRef(module, other)
                if any(isinstance(base, ClassRef) and base.key == cls.key for base in self.index.bases(ref)):
                    qualified = f"{module.name}.{other.name}" if module.name else None
                    name = Name(other.name, other.span, qualified, module.module_code.qualname)
                    entries.append(Entry(name, self.module_frame(module)))
        return SeqObj(entries, open=True, indexable=False)

    def _certainly_missing(self, holder: DictObj, index: Value, frame: Frame) -> bool:
        """A closed dict whose entries, all with constant keys, have none for this constant key
        (``{"mixup": 0.5}.get("noise")`` is the default)."""
        if holder.open:
            return False
        key = self.constant(index, frame)
        if key is None:
            return False
        return all(not e.spread and e.key is not Entry.ANY and e.key != key.value for e in self.dict_entries(holder))


def _converted(value: Obj, convert) -> Obj:
    """``int(x)`` of one value: a converted constant (documented ones keep their place), a
    command-line option's unknown value as it is, anything else unknown."""
    if isinstance(value, FromCommandLine):
        return value
    if not isinstance(value, Constant) or value.value is None:
        return UNKNOWN
    try:
        converted = convert(value.value)
    except (TypeError, ValueError, OverflowError):
        return UNKNOWN
    if isinstance(value, DocumentedConstant):
        return DocumentedConstant(converted, value.spelled, value.file, value.line)
    return Constant(converted)


def _key_of(obj) -> object:
    return obj.key if obj is not None else None
