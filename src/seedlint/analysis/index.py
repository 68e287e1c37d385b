"""The project index: joins module facts across files.

It maps dotted module names to files (loading them lazily, only when a resolution
needs them), resolves qualified names through imports and re-exports to the class or
function they name, and walks base classes across modules.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Set, Tuple, Union

from seedlint.analysis.import_roots import ancestors, path_edits
from seedlint import timing
from seedlint.analysis import library
from seedlint.facts.model import Class, Const, Function, ModuleFacts, Name, Seq, Value
from seedlint.knowledge import catalogued_names


@dataclass(frozen=True, eq=False)
class ClassRef:
    module: ModuleFacts
    cls: Class

    @property
    def key(self) -> Tuple[str, str]:
        return (self.module.path, self.cls.qualname)


@dataclass(frozen=True, eq=False)
class FunctionRef:
    module: ModuleFacts
    function: Function

    @property
    def key(self) -> Tuple[str, str]:
        return (self.module.path, self.function.qualname)


@dataclass(frozen=True)
class ExternalRef:
    """Something outside the project, by qualified name (``torch.utils.data.DataLoader``)."""

    qualified: str


@dataclass(frozen=True, eq=False)
class VariableRef:
    """A module-level variable of a project module."""

    module: ModuleFacts
    name: str


@dataclass(frozen=True, eq=False)
class ModuleRef:
    module: ModuleFacts


Symbol = Union[ClassRef, FunctionRef, ExternalRef, VariableRef, ModuleRef]
ModuleLoader = Callable[[str, str, bool], Optional[ModuleFacts]]
"""(path, module name, is_package) -> facts, or None when the file cannot be analysed."""


def module_identity(path: str) -> Tuple[str, str, bool]:
    """(dotted module name, source root, is_package) for a Python file.

    The package chain is found by walking up through directories that hold an
    ``__init__.py``; the first directory without one is the source root.
    """
    absolute = os.path.abspath(path)
    directory, filename = os.path.split(absolute)
    # A notebook runs as ``__main__`` and nothing imports it: a name no import can spell.
    stem = filename[:-3] if filename.endswith(".py") else filename[:-6] + "_ipynb" if filename.endswith(".ipynb") else filename
    is_package = stem == "__init__"
    parts: List[str] = [] if is_package else [stem]
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        parent, package = os.path.split(directory)
        if parent == directory:
            break
        parts.insert(0, package)
        directory = parent
    return ".".join(parts), directory, is_package


MAX_REEXPORT_DEPTH = 32
"""Imports followed through re-exports before a name is given up."""


def _library_star_source(libraries: List[str], name: str) -> Optional[str]:
    """Among library star imports (the last first), the one ``name`` comes from."""
    catalogued = catalogued_names()
    for star in libraries:
        if f"{star}.{name}" in catalogued:
            return star
    candidates = [star for star in libraries if not _standard_module_without(star, name)]
    return candidates[0] if candidates else (libraries[0] if libraries else None)


def _standard_module_without(star: str, name: str) -> bool:
    """``from math import *`` does not give ``DataLoader``: a standard-library module that is
    already imported here and has no such member."""
    if star.split(".", 1)[0] not in sys.stdlib_module_names:
        return False
    loaded = sys.modules.get(star)
    return loaded is not None and not hasattr(loaded, name)


class ProjectIndex:
    """Every module seedlint has facts for, and name resolution across them."""

    def __init__(self, loader: ModuleLoader, project_root: Optional[str] = None) -> None:
        self._loader = loader
        self.project_root = os.path.abspath(project_root) if project_root else None
        self.modules: Dict[str, ModuleFacts] = {}
        self._first_named: Dict[str, ModuleFacts] = {}
        self._imports_of: Dict[Tuple[str, int], List[ModuleFacts]] = {}
        self.roots: List[str] = []
        self._root_of: Dict[str, str] = {}
        self._by_name: Dict[Tuple[str, str], Optional[ModuleFacts]] = {}
        self._resolved: Dict[tuple, Optional["Symbol"]] = {}
        self._resolving: Set[tuple] = set()
        self._cycle_met = False
        self._at_root: Dict[Tuple[str, str], Optional[ModuleFacts]] = {}
        self._entries: Dict[str, Set[str]] = {}
        self._absolute: Dict[str, str] = {}
        self._mro: Dict[Tuple[str, str], List[ClassRef]] = {}
        self._search_roots: Dict[str, List[str]] = {}
        self._bases: Dict[Tuple[str, str], List[List[Symbol]]] = {}
        self._constructors: Dict[tuple, List[FunctionRef]] = {}
        self.base_resolver: Optional[Callable[[ClassRef, Value], List[Symbol]]] = None
        """Set by the value flow: resolves a base the names alone do not (a parameter of
        the function that defines the class, ``REGISTRY[key]``, a call)."""
        self.unreadable: Dict[str, str] = {}
        """Project modules an import names that could not be analysed (path -> dotted name)."""

    # ------------------------------------------------------------------ modules
    def add(self, facts: ModuleFacts, root: str) -> None:
        path = os.path.abspath(facts.path)
        first = self._first_named.get(facts.name)
        if first is None or os.path.abspath(first.path) == path:
            self._first_named[facts.name] = facts
        self.modules[path] = facts
        self._root_of[path] = root
        if root not in self.roots:
            self.roots.append(root)
        if facts.star_names:
            self.link_star_names(facts)

    def link_star_names(self, facts: ModuleFacts) -> None:
        """Qualify the names ``facts`` reads that only its ``from x import *`` can bind:
        ``Noisy`` after ``from .sets import *`` is ``pkg.sets.Noisy``."""
        sources: Dict[str, Optional[str]] = {}
        for name in facts.star_names:
            root = name.root
            if root not in sources:
                sources[root] = self._star_source(facts, root, set())
            source = sources[root]
            name.qualified = f"{source}.{name.dotted}" if source else f"builtins.{name.dotted}"

    def _star_source(self, module: ModuleFacts, name: str, seen: Set[str]) -> Optional[str]:
        """The module whose member ``name`` is, among ``module``'s star imports: the last
        project module that binds it (its own star imports followed), else the library star
        import the knowledge catalogue knows it from (``monai.data.DataLoader`` beside ``from
        monai.transforms import *``), else the last library star import that may have it (a
        library's members are not known here; a standard-library module's are)."""
        seen.add(self.absolute(module.path))
        libraries: List[str] = []
        for star in reversed(module.star_imports):
            if not star:
                continue
            target = self.module_named(star, module)
            if target is None:
                libraries.append(star)
                continue
            if self.absolute(target.path) in seen or not exported(target, name):
                continue
            if name in target.imports or name in target.classes or name in target.functions or name in target.toplevel:
                return star
            inner = self._star_source(target, name, seen)
            if inner is not None:
                return inner
        return _library_star_source(libraries, name)

    def root_of(self, module: ModuleFacts) -> str:
        return self._root_of.get(self.absolute(module.path), "")

    def search_roots(self, near: Optional[ModuleFacts]) -> List[str]:
        """Where ``near``'s imports are looked for, in order (see ``import_roots``)."""
        if near is None:
            return list(self.roots) + ([self.project_root] if self.project_root else [])
        path = self.absolute(near.path)
        found = self._search_roots.get(path)
        if found is not None:
            return found + [r for r in self.roots if r not in found]
        self._search_roots[path] = []
        ordered: List[str] = []
        own = self.root_of(near) or module_identity(path)[1]
        ordered.append(own)
        ordered.extend(path_edits(near, self.project_root))
        for setup in self._path_setup_modules(near, own):
            ordered.extend(path_edits(setup, self.project_root))
        ordered.extend(ancestors(os.path.dirname(path), self.project_root))
        if self.project_root:
            ordered.append(os.path.join(self.project_root, "src"))
        found = [d for d in dict.fromkeys(ordered) if os.path.isdir(d)]
        self._search_roots[path] = found
        return found + [r for r in self.roots if r not in found]

    def _path_setup_modules(self, near: ModuleFacts, own_root: str) -> List[ModuleFacts]:
        """Sibling modules ``near`` imports that edit ``sys.path`` (``import _init_paths``)."""
        found = []
        directory = os.path.dirname(self.absolute(near.path))
        for target in set(near.imports.values()):
            first = target.split(".", 1)[0]
            candidate = os.path.join(directory, first + ".py")
            if not os.path.isfile(candidate):
                continue
            try:
                with open(candidate, "rb") as handle:
                    if b"sys.path" not in handle.read():
                        continue
            except OSError:
                continue
            loaded = self._load(candidate, first, False, own_root)
            if loaded is not None:
                found.append(loaded)
        return found

    def load_file(self, path: str) -> Optional[ModuleFacts]:
        """The facts of a project file found by path, loaded now if needed."""
        absolute = os.path.abspath(path)
        if absolute in self.modules:
            return self.modules[absolute]
        name, root, is_package = module_identity(absolute)
        return self._load(absolute, name, is_package, root)

    def module_named(self, dotted: str, near: Optional[ModuleFacts] = None, load: bool = True) -> Optional[ModuleFacts]:
        """The project module with that dotted name; with ``load=False`` only one already loaded."""
        if not dotted:
            return None
        if near is not None and near.name == dotted and not self._package_beside(near, dotted):
            return near
        first = self.absolute(near.path) if near is not None else ""
        key = (first, dotted)
        if key in self._by_name:
            return self._by_name[key]
        if not load:
            return self._first_named.get(dotted) or self._loaded_under_a_root(dotted, near)
        found = None
        first_part = dotted.split(".", 1)[0]
        for root in self.search_roots(near):
            if first_part not in self._entries_of(root):
                continue
            found = self._under_root(root, dotted)
            if found is not None:
                break
        self._by_name[key] = found
        return found

    def _loaded_under_a_root(self, dotted: str, near: Optional[ModuleFacts]) -> Optional[ModuleFacts]:
        """A loaded module the name reaches from ``near``'s search roots, though it was loaded
        under another name (``src/utils/dist.py``, found by path as ``utils.dist`` and imported
        as ``src.utils.dist``): no file is read."""
        relative = dotted.replace(".", os.sep)
        first_part = dotted.split(".", 1)[0]
        for root in self.search_roots(near):
            if first_part not in self._entries_of(root):
                continue
            for candidate in (os.path.join(relative, "__init__.py"), relative + ".py"):
                found = self.modules.get(self.absolute(os.path.join(root, candidate)))
                if found is not None:
                    return found
        return None

    def _entries_of(self, root: str) -> Set[str]:
        """The names importable at the top of ``root``: its directories and its modules' stems."""
        found = self._entries.get(root)
        if found is None:
            try:
                names = os.listdir(root)
            except OSError:
                names = []
            found = self._entries[root] = {name[:-3] if name.endswith(".py") else name for name in names}
        return found

    def _under_root(self, root: str, dotted: str) -> Optional[ModuleFacts]:
        """The module or package ``dotted`` names under one import root."""
        key = (root, dotted)
        if key in self._at_root:
            return self._at_root[key]
        relative = dotted.replace(".", os.sep)
        # Python's path finder takes a package before a module of the same name in one
        # directory (``train/__init__.py`` before ``train.py``)
        found = self._load(os.path.join(root, relative, "__init__.py"), dotted, True, root)
        if found is None:
            found = self._load(os.path.join(root, relative + ".py"), dotted, False, root)
        self._at_root[key] = found
        return found

    @staticmethod
    def _package_beside(module: ModuleFacts, dotted: str) -> bool:
        """A package of the module's own name in its directory, which an import of that name
        gets instead (``from train import Trainer`` in ``train.py`` beside ``train/``)."""
        last = dotted.rsplit(".", 1)[-1]
        return os.path.isfile(os.path.join(os.path.dirname(module.path), last, "__init__.py"))

    def absolute(self, path: str) -> str:
        found = self._absolute.get(path)
        if found is None:
            found = self._absolute[path] = os.path.abspath(path)
        return found

    def _load(self, path: str, dotted: str, is_package: bool, root: str) -> Optional[ModuleFacts]:
        absolute = self.absolute(path)
        if absolute in self.modules:
            return self.modules[absolute]
        if not os.path.isfile(absolute):
            return None
        facts = self._loader(absolute, dotted, is_package)
        if facts is not None:
            self.add(facts, root)
        else:
            self.unreadable[absolute] = dotted
        return facts

    def import_closure(self, modules: Iterable[ModuleFacts]) -> Set[str]:
        """Paths of the analysed modules that ``modules`` import, directly or through
        each other (nothing is read from disk), with ``modules`` themselves."""
        seen: Set[str] = set()
        pending = list(modules)
        while pending:
            module = pending.pop()
            path = self.absolute(module.path)
            if path in seen:
                continue
            seen.add(path)
            pending.extend(self._imported(module))
        return seen

    def _imported(self, module: ModuleFacts) -> List[ModuleFacts]:
        key = (module.path, len(self.modules))  # a module loaded since may now resolve
        found = self._imports_of.get(key)
        if found is None:
            found = []
            for qualified in [*module.imports.values(), *module.star_imports]:
                parts = qualified.split(".")
                for cut in range(len(parts), 0, -1):
                    imported = self.module_named(".".join(parts[:cut]), near=module, load=False)
                    if imported is not None:
                        found.append(imported)
                        break
            self._imports_of[key] = found
        return found

    # ------------------------------------------------------------------ names
    def resolve(self, qualified: Optional[str], near: Optional[ModuleFacts], depth: int = 0, load: bool = True) -> Optional[Symbol]:
        """The symbol a fully qualified name stands for. With ``load=False`` no module is
        read from disk: only modules already analysed are consulted."""
        if not qualified:
            return None
        if depth > MAX_REEXPORT_DEPTH:
            timing.limit_hit("re-export depth")
            self._cycle_met = True  # cut short here: what leaned on it is not kept
            return None
        if qualified.startswith("builtins."):
            return ExternalRef(qualified[len("builtins."):])
        # Re-exports through star imports and package bindings may form cycles and fan out:
        # each name is resolved once per module state, and a name met again while it is being
        # resolved resolves to nothing on that path.
        key = (qualified, near.path if near is not None else "", load, len(self.modules))
        if key in self._resolved:
            return self._resolved[key]
        if key in self._resolving:
            self._cycle_met = True
            return None
        self._resolving.add(key)
        outer, self._cycle_met = self._cycle_met, False
        try:
            found = self._resolve(qualified, near, depth, load)
        finally:
            self._resolving.discard(key)
        if not self._cycle_met:
            self._resolved[key] = found  # a result that leaned on a name still being resolved is not kept
        self._cycle_met = outer or self._cycle_met
        return found

    def _resolve(self, qualified: str, near: Optional[ModuleFacts], depth: int, load: bool) -> Optional[Symbol]:
        parts = qualified.split(".")
        if library.owns(parts[0], near.name if near is not None and near.name else ""):
            return ExternalRef(qualified)
        for cut in range(len(parts), 0, -1):
            module = self.module_named(".".join(parts[:cut]), near, load)
            if module is not None:
                if cut == len(parts) and cut > 1:
                    rebound = self._rebound_by_package(parts, near, depth, load)
                    if rebound is not None:
                        return rebound
                return self._member(module, parts[cut:], depth, load)
        return ExternalRef(qualified)

    def _rebound_by_package(self, parts: List[str], near: Optional[ModuleFacts], depth: int, load: bool) -> Optional[Symbol]:
        package = self.package_rebinding(parts, near, load)
        return self._member(package, parts[-1:], depth + 1, load) if package is not None else None

    def package_rebinding(self, parts: List[str], near: Optional[ModuleFacts], load: bool = True) -> Optional[ModuleFacts]:
        """The package whose own binding of ``parts[-1]`` replaces its submodule of that name:
        ``from lib.data import TrainDataset`` where ``lib/data/__init__.py`` runs ``from
        .TrainDataset import TrainDataset`` reads the class (Python's ``from ... import``
        takes the package's attribute first); None when it binds no other object."""
        package = self.module_named(".".join(parts[:-1]), near, load)
        name = parts[-1]
        if package is None or os.path.basename(package.path) != "__init__.py":
            return None
        target = package.imports.get(name)
        submodule = ".".join(parts)
        if target is not None and target != submodule and not target.endswith("." + submodule):
            return package
        return package if name in package.classes or name in package.functions else None

    def resolve_name(self, name: Name, near: ModuleFacts) -> Optional[Symbol]:
        return self.resolve(name.qualified, near) if name.qualified else None

    def _member(self, module: ModuleFacts, rest: List[str], depth: int, load: bool = True) -> Optional[Symbol]:
        if not rest:
            return ModuleRef(module)
        first, dotted = rest[0], ".".join(rest)
        if first in module.imports:
            target = ".".join([module.imports[first], *rest[1:]])
            return self.resolve(target, module, depth + 1, load)
        if dotted in module.classes:
            return ClassRef(module, module.classes[dotted])
        if dotted in module.functions:
            return FunctionRef(module, module.functions[dotted])
        if first in module.classes:
            return None
        if first in module.toplevel:
            return VariableRef(module, first) if len(rest) == 1 else None
        for star in module.star_imports:
            target = self.module_named(star, module, load)
            if target is not None and target is not module:
                found = self._member(target, rest, depth + 1, load)
                if found is not None:
                    return found
        sub = self.module_named(f"{module.name}.{first}", module, load) if module.name else None
        if sub is not None:
            return self._member(sub, rest[1:], depth + 1, load)
        return None

    def symbol_of(self, value: Value, near: ModuleFacts) -> Optional[Symbol]:
        if isinstance(value, Name):
            return self.resolve_name(value, near)
        return None

    # ------------------------------------------------------------------ classes
    def mro(self, ref: ClassRef) -> List[ClassRef]:
        """The class and its project base classes, in method resolution order."""
        if ref.key in self._mro:
            return self._mro[ref.key]
        self._mro[ref.key] = [ref]
        order: List[ClassRef] = [ref]
        seen = {ref.key}
        for base in self.bases(ref):
            if isinstance(base, ClassRef):
                for item in self.mro(base):
                    if item.key not in seen:
                        seen.add(item.key)
                        order.append(item)
        self._mro[ref.key] = order
        return order

    def bases(self, ref: ClassRef) -> Iterator[Symbol]:
        return iter(symbol for group in self.base_groups(ref) for symbol in group)

    def base_groups(self, ref: ClassRef) -> List[List[Symbol]]:
        """Per base class expression, what it may be: one class, or several when it is
        computed (``class Dataset(sources[name], tasks[task])``)."""
        key = ref.key
        found = self._bases.get(key)
        if found is None:
            found = self._bases[key] = list(self._find_bases(ref))
        return found

    def _find_bases(self, ref: ClassRef) -> Iterator[List[Symbol]]:
        for base in ref.cls.bases:
            symbol = self.symbol_of(base, ref.module)
            if symbol is not None and not isinstance(symbol, VariableRef):
                yield [symbol]
            elif self.base_resolver is not None:
                yield list(self.base_resolver(ref, base))

    def constructors(self, ref: ClassRef) -> List[FunctionRef]:
        """The project ``__init__`` methods that may run first when ``ref`` is instantiated:
        one for a fixed base chain, one per alternative when a base is computed."""
        key = ref.key
        if key in self._constructors:
            return self._constructors[key]
        self._constructors[key] = []
        qualname = ref.cls.methods.get("__init__")
        if qualname is not None:
            found = [FunctionRef(ref.module, ref.module.functions[qualname])]
        else:
            found = []
            for group in self.base_groups(ref):
                settled = True
                for base in group:
                    if isinstance(base, ClassRef):
                        inner = self.constructors(base)
                        found.extend(f for f in inner if all(f.key != g.key for g in found))
                        settled = settled and bool(inner)
                if settled and group:
                    break  # every alternative of this base defines the constructor
        self._constructors[key] = found
        return found

    def external_bases(self, ref: ClassRef) -> List[str]:
        """Qualified names of the non-project classes anywhere in the base chain."""
        found: List[str] = []
        for item in self.mro(ref):
            for base in self.bases(item):
                if isinstance(base, ExternalRef):
                    found.append(base.qualified)
        return found

    def is_subclass(self, ref: ClassRef, qualified_names) -> bool:
        return any(base in qualified_names for base in self.external_bases(ref))

    def method(self, ref: ClassRef, name: str) -> Optional[FunctionRef]:
        """Look a method up along the project part of the MRO."""
        for item in self.mro(ref):
            qualname = item.cls.methods.get(name)
            if qualname is not None:
                return FunctionRef(item.module, item.module.functions[qualname])
        return None

    def class_of(self, function: FunctionRef) -> Optional[ClassRef]:
        name = function.function.class_name
        if name is None or name not in function.module.classes:
            return None
        return ClassRef(function.module, function.module.classes[name])


def exported(module: ModuleFacts, name: str) -> bool:
    """``from module import *`` binds ``name``: listed in ``__all__``, or public."""
    for assign in module.module_code.assigns:
        if assign.target == "__all__" and isinstance(assign.value, Seq):
            return any(isinstance(item, Const) and item.value == name for item in assign.value.items)
    return not name.startswith("_")
