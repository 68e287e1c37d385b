"""Configuration files as values the value flow evaluates: what ``OmegaConf.load(path)``
reads, and the configuration ``@hydra.main(config_path=..., config_name=...)`` composes for
the function it decorates.

Composition follows Hydra 1.1 and later: the primary file's ``defaults:`` list in order
(``group: option`` reads ``<config dir>/<group>/<option>.yaml`` under the key ``group``, or
at the root with ``# @package _global_``; ``_self_`` places the primary file's own keys, and
goes last when the list does not name it), mappings merged key by key with later entries
winning; ``${a.b}`` interpolations read the composed tree. This is the program its files
configure: a group option chosen on the command line (``python train.py trainer=ddp``) is a
different program, which the files do not show. Files are read with PyYAML; one that does
not parse, a missing file, or a key the files do not set is unknown.
"""

from __future__ import annotations

import functools
import os
import re
from typing import List, Optional, Tuple, Union

from seedlint.analysis import inputs
from seedlint.facts.model import UNKNOWN, Call, ConfigConst, Const, DictDisplay, Function, ModuleFacts, Name, Seq, Value

HYDRA_MAIN = frozenset({"hydra.main", "hydra.main.main"})
HYDRA_COMPOSE = frozenset({"hydra.compose", "hydra.compose.compose", "hydra.experimental.compose"})
HYDRA_INITIALIZE = frozenset({"hydra.initialize", "hydra.initialize.initialize", "hydra.experimental.initialize"})
HYDRA_INITIALIZE_DIR = frozenset({"hydra.initialize_config_dir", "hydra.initialize.initialize_config_dir", "hydra.experimental.initialize_config_dir"})
MAX_FILES = 200
"""Configuration files one composition may read: a guard against a runaway defaults tree."""

_INTERPOLATION = re.compile(r"^\$\{([A-Za-z0-9_.]+)\}$")
_PACKAGE = re.compile(r"^#\s*@package\s+(\S+)", re.MULTILINE)


Tree = Union[dict, list, str, int, float, bool, None]


def hydra_config(module: ModuleFacts, function: Function) -> Optional[Value]:
    """The configuration the function receives as its first parameter when it is a
    ``@hydra.main`` entry point whose config folder exists, else None."""
    for decorator in function.decorators:
        if not (isinstance(decorator, Call) and isinstance(decorator.func, Name) and decorator.func.qualified in HYDRA_MAIN):
            continue
        path = _constant_text(decorator.argument("config_path", 0))
        name = _constant_text(decorator.argument("config_name", 1))
        if path is None or name is None or "://" in path:
            return UNKNOWN
        directory = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(module.path)), path))
        return composed(directory, name)
    return None


def composed(directory: str, name: str, overrides: Tuple[str, ...] = ()) -> Value:
    """The configuration ``name`` of the config folder ``directory`` composes, as values,
    with ``key=value`` overrides applied (``compose(overrides=[...])``). An override that
    picks a config group's option (``trainer=ddp``) composes another program: unknown."""
    tree = _Composer(directory).primary(name)
    if tree is None:
        return UNKNOWN
    for override in overrides:
        tree = _overridden(tree, override, directory)
        if tree is None:
            return UNKNOWN
    return _as_value(tree, tree)


def _overridden(tree: Tree, override: str, directory: str) -> Optional[Tree]:
    import yaml

    text = override.lstrip("+")
    deleting = text.startswith("~")
    key, equals, raw = text.lstrip("~").partition("=")
    key = key.split("@", 1)[0].strip()
    if not key or (not equals and not deleting) or os.path.isdir(os.path.join(directory, *key.split("."))):
        return None
    try:
        value = yaml.safe_load(raw) if equals else None
    except yaml.YAMLError:
        value = raw
    parts = key.split(".")
    result = Located(tree) if isinstance(tree, dict) else Located()
    result.places.update(getattr(tree, "places", {}))
    node = result
    for part in parts[:-1]:
        child = node.get(part)
        copied = Located(child) if isinstance(child, dict) else Located()
        copied.places.update(getattr(child, "places", {}))
        node[part] = copied
        node = copied
    if deleting:
        node.pop(parts[-1], None)
    else:
        node[parts[-1]] = value
    return result


def loaded_file(path: str) -> Optional[Value]:
    """A YAML file's content (``OmegaConf.load``), interpolations resolved; None when the
    file does not exist or does not parse."""
    loaded = _Composer(os.path.dirname(path)).load(path)
    if loaded is None:
        return None
    return _as_value(loaded[0], loaded[0])


def config_where(place: Tuple[str, int], root: Optional[str]) -> str:
    """``configs/trainer/ddp.yaml:5``: a configuration file's key, from the project root."""
    path, line = place
    inside = root and os.path.abspath(path).startswith(os.path.abspath(root) + os.sep)
    return f"{os.path.relpath(path, root) if inside else os.path.basename(path)}:{line}"


def as_config_value(tree: Tree) -> Value:
    """A configuration read from a file, as values (interpolations read the same tree)."""
    return _as_value(tree, tree)


def _constant_text(value: Optional[Value]) -> Optional[str]:
    return value.value if isinstance(value, Const) and isinstance(value.value, str) else None


class _Composer:
    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.read = 0

    def primary(self, name: str) -> Optional[Tree]:
        loaded = self.load(os.path.join(self.directory, _yaml_name(name)))
        if loaded is None:
            return None
        content, header = loaded
        return self._compose(content, "", _absolute(header) if header is not None else "")

    def _compose(self, content: Tree, group: str, package: str) -> Tree:
        """A config file in ``group`` (where its relative defaults are looked for), its own
        keys placed at ``package``, merged at the root with its defaults list."""
        defaults = content.get("defaults") if isinstance(content, dict) else None
        own = _without(content, "defaults") if isinstance(content, dict) else content
        if not isinstance(defaults, list):
            return _at(package, own)
        result: Tree = {}
        placed_self = False
        for entry in defaults:
            if entry == "_self_":
                result = _merge(result, _at(package, own))
                placed_self = True
                continue
            for tree in self._default(entry, group, package):
                result = _merge(result, tree)
        if not placed_self:
            result = _merge(result, _at(package, own))
        return result

    def _default(self, entry, group: str, package: str) -> List[Tree]:
        """What one defaults-list entry of a config in ``group`` at ``package`` adds, each
        file composed at the root."""
        if isinstance(entry, str):  # a config of the same group: ``- base``
            return self._file(group, entry, None)
        if not isinstance(entry, dict) or len(entry) != 1:
            return []
        key, option = next(iter(entry.items()))
        key = str(key)
        for prefix in ("override ", "optional "):
            if key.startswith(prefix):
                key = key[len(prefix):].strip()
        name, _, package_override = key.partition("@")
        absolute = name.startswith("/")
        folder = name.strip("/") if absolute or not group else f"{group}/{name}"
        if option is None:
            return []
        # A package given in the defaults list is relative to the config that lists it.
        placed = _relative(package, package_override) if package_override else None
        found: List[Tree] = []
        for choice in option if isinstance(option, list) else [option]:  # a list merges every option
            found += self._file(folder, str(choice), placed)
        return found

    def _file(self, folder: str, name: str, placed: Optional[str]) -> List[Tree]:
        """One config file of ``folder`` composed at the root: at ``placed`` when the
        defaults list says, else where its ``# @package`` header or its folder puts it."""
        loaded = self.load(os.path.join(self.directory, folder, _yaml_name(name)))
        if loaded is None:
            return []
        content, header = loaded
        if placed is None:
            placed = _absolute(header) if header is not None else folder.replace("/", ".")
        return [self._compose(content, folder, placed)]

    def load(self, path: str) -> Optional[Tuple[Tree, Optional[str]]]:
        """A file's content and its ``# @package`` header."""
        if self.read >= MAX_FILES or not os.path.isfile(path):
            return None
        self.read += 1
        try:
            inputs.read(path)
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
            content = _load_located(text, path)
        except Exception:  # a file that does not parse declares nothing
            return None
        header = _PACKAGE.search(text)
        return (content if content is not None else {}), (header.group(1) if header else None)


def _yaml_name(name: str) -> str:
    return name if name.endswith((".yaml", ".yml")) else name + ".yaml"


def _absolute(header: str) -> str:
    """A ``# @package`` header as a dotted path from the root (``_global_``: the root)."""
    return "" if header == "_global_" else header.replace("_global_.", "")


def _relative(package: str, override: str) -> str:
    """A defaults-list ``group@pkg`` package, relative to the listing config's package."""
    if override.startswith("_global_"):
        return _absolute(override)
    return f"{package}.{override}" if package else override


def _at(package: str, tree: Tree) -> Tree:
    """``tree`` placed under the dotted package ("" is the root)."""
    if not package:
        return tree
    for part in reversed(package.split(".")):
        tree = {part: tree}
    return tree


def _merge(base: Tree, over: Tree) -> Tree:
    if isinstance(base, dict) and isinstance(over, dict):
        merged = Located(base)
        merged.places.update(getattr(base, "places", {}))
        for key, value in over.items():
            merged[key] = _merge(merged[key], value) if key in merged else value
            place = getattr(over, "places", {}).get(key)
            if place is not None:
                merged.places[key] = place
        return merged
    return over


def _without(tree: dict, key: str) -> dict:
    kept = Located((k, v) for k, v in tree.items() if k != key)
    kept.places.update((k, p) for k, p in getattr(tree, "places", {}).items() if k != key)
    return kept


class Located(dict):
    """A mapping read from a configuration file, with the (path, line) of each key."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.places: dict = {}


def _load_located(text: str, path: str) -> Tree:
    """A YAML document as PyYAML's ``safe_load`` reads it, mappings as ``Located``."""
    loader = _located_loader()(text)
    loader.path = path
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


@functools.lru_cache(maxsize=None)
def _located_loader():
    import yaml

    class LocatedLoader(yaml.SafeLoader):
        path = ""

    def mapping(loader, node, deep=False):
        loader.flatten_mapping(node)
        located = Located()
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            located[key] = loader.construct_object(value_node, deep=True)
            located.places[key] = (loader.path, key_node.start_mark.line + 1)
        return located

    LocatedLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    return LocatedLoader


def _as_value(tree: Tree, root: Tree, depth: int = 0) -> Value:
    """The composed tree as facts values: mappings as attribute-readable dict displays,
    lists as sequences, interpolations resolved."""
    if depth > 32:
        return UNKNOWN
    if isinstance(tree, dict):
        keys = tuple(Const(str(k)) for k in tree)
        values = tuple(_located_value(tree, k, root, depth + 1) for k in tree)
        return DictDisplay(keys, values, attributes=True)
    if isinstance(tree, list):
        return Seq(tuple(_as_value(v, root, depth + 1) for v in tree))
    if isinstance(tree, str):
        match = _INTERPOLATION.match(tree)
        if match:
            return _as_value(_lookup(root, match.group(1)), root, depth + 1)
        if "${" in tree:
            return UNKNOWN
    if isinstance(tree, (str, int, float, bool)) or tree is None:
        return Const(tree)
    return UNKNOWN


def _located_value(tree: dict, key, root: Tree, depth: int = 0) -> Value:
    """The value under ``key``; a constant carries the place of its key."""
    value = _as_value(tree[key], root, depth)
    place = getattr(tree, "places", {}).get(key)
    if place is not None and type(value) is Const:
        return ConfigConst(value.value, place)
    return value


class _Missing:
    pass


def _lookup(root: Tree, dotted: str) -> Tree:
    node: Tree = root
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return _Missing()
        node = node[part]
    return node


# ---------------------------------------------------------------------- OmegaConf
OMEGACONF_LOAD = frozenset({"omegaconf.OmegaConf.load", "omegaconf.omegaconf.OmegaConf.load"})
OMEGACONF_CREATE = frozenset({"omegaconf.OmegaConf.create", "omegaconf.omegaconf.OmegaConf.create", "omegaconf.DictConfig"})
OMEGACONF_MERGE = frozenset({"omegaconf.OmegaConf.merge", "omegaconf.omegaconf.OmegaConf.merge", "omegaconf.OmegaConf.unsafe_merge"})
FILE_PARSERS = frozenset({
    "yaml.load", "yaml.safe_load", "yaml.full_load", "yaml.unsafe_load", "yaml.load.load",
    "json.load", "json.load.load",
})
"""Parsers of an opened file: ``yaml.load(f, Loader=...)`` and ``json.load(f)`` after ``with
open(path) as f`` read the file at ``path`` (JSON documents are YAML documents)."""


def candidate_paths(path: str, module_path: str, project_root: Optional[str]) -> List[str]:
    """Where a relative path a program opens may point: from the project root (where
    training scripts are run from), from the script's folder, and from its parent."""
    if os.path.isabs(path):
        return [path]
    folder = os.path.dirname(os.path.abspath(module_path))
    bases = ([project_root] if project_root else []) + [folder, os.path.dirname(folder)]
    return list(dict.fromkeys(os.path.normpath(os.path.join(base, path)) for base in bases))


# ---------------------------------------------------------------------- instantiate
INSTANTIATE = frozenset({"hydra.utils.instantiate", "hydra.utils.call", "hydra._internal.instantiate._instantiate2.instantiate"})
_RESERVED = frozenset({"_target_", "_recursive_", "_convert_", "_partial_", "_args_"})


def configured_call(call: Call, target: str, entries: List[Tuple[str, Value]]) -> Call:
    """The call ``instantiate(config, **overrides)`` makes: ``target(**config, **overrides)``,
    the overrides winning, nested configs with a ``_target_`` built first (Hydra's default
    ``_recursive_``). Spelled at the ``instantiate`` call."""
    keywords = [(key, value) for key, value in call.kwargs]
    given = {key for key, _ in keywords}
    keywords += [(key, _nested(value, call)) for key, value in entries if key not in given and key not in _RESERVED]
    func = Name(target, call.span, target, "")
    return Call(func, (), tuple(keywords), call.span, keyword_spans=call.keyword_spans)


def _nested(value: Value, call: Call) -> Value:
    if not isinstance(value, DictDisplay) or value.stars:
        return value
    pairs = [(k.value, v) for k, v in zip(value.keys, value.values) if isinstance(k, Const) and isinstance(k.value, str)]
    target = next((v.value for k, v in pairs if k == "_target_" and isinstance(v, Const) and isinstance(v.value, str)), None)
    if target is None or any(k == "_partial_" for k, _ in pairs):
        return value
    keywords = tuple((k, _nested(v, call)) for k, v in pairs if k not in _RESERVED)
    return Call(Name(target, call.span, target, ""), (), keywords, call.span)


# ---------------------------------------------------------------------- LightningCLI
LIGHTNING_CLI = frozenset({
    "lightning.pytorch.cli.LightningCLI", "lightning.pytorch.LightningCLI", "lightning.LightningCLI",
    "pytorch_lightning.cli.LightningCLI", "pytorch_lightning.utilities.cli.LightningCLI",
})
CLI_SECTIONS = frozenset({"trainer", "model", "data", "seed_everything", "optimizer", "lr_scheduler", "ckpt_path"})
CLI_SUBCOMMANDS = ("fit", "validate", "test", "predict")
_SKIPPED_FOLDERS = frozenset({".git", ".venv", "venv", "env", "node_modules", "__pycache__", "site-packages", "build", "dist"})


def cli_configs(root: str) -> List[Tuple[str, dict]]:
    """The project's LightningCLI configuration files (``--config`` candidates): YAML files
    whose top level is made of the CLI's sections (``trainer``, ``model``, ``data``, ...), one
    subcommand's (``fit:``) taken as its sections. Each is one way the program is run."""
    found: List[Tuple[str, dict]] = []
    read = 0
    for directory, folders, files in os.walk(root):
        inputs.read(directory)
        folders[:] = sorted(f for f in folders if f not in _SKIPPED_FOLDERS and not f.startswith("."))
        for name in sorted(files):
            if not name.endswith((".yaml", ".yml")) or read >= MAX_FILES:
                continue
            read += 1
            loaded = _Composer(directory).load(os.path.join(directory, name))
            if loaded is None or not isinstance(loaded[0], dict):
                continue
            content = loaded[0]
            for command in CLI_SUBCOMMANDS:
                if isinstance(content.get(command), dict) and set(content) <= set(CLI_SUBCOMMANDS) | CLI_SECTIONS:
                    content = content[command]
                    break
            keys = set(content)
            if keys and keys <= CLI_SECTIONS and keys & {"trainer", "model", "data"}:
                found.append((os.path.join(directory, name), content))
    return found


def cli_section(content: dict, section: str) -> Tuple[Optional[str], List[Tuple[str, Value]]]:
    """One section of a LightningCLI config: the ``class_path`` it names (None: the class the
    CLI was given) and its init arguments (``init_args``, or the section's own keys)."""
    part = content.get(section)
    if not isinstance(part, dict):
        return None, []
    class_path = part.get("class_path") if isinstance(part.get("class_path"), str) else None
    arguments = part.get("init_args") if class_path is not None else part
    if not isinstance(arguments, dict):
        return class_path, []
    return class_path, [(str(k), _located_value(arguments, k, content)) for k in arguments if str(k) != "class_path"]


def cli_call(call: Call, func: Value, arguments: List[Tuple[str, Value]]) -> Call:
    """The construction a LightningCLI makes from a config section, spelled at the CLI's call."""
    return Call(func, (), tuple((key, _nested_class_path(value, call)) for key, value in arguments), call.span)


def _nested_class_path(value: Value, call: Call) -> Value:
    """``{class_path: X, init_args: {...}}`` inside init arguments: jsonargparse builds it."""
    if not isinstance(value, DictDisplay):
        return value
    pairs = {k.value: v for k, v in zip(value.keys, value.values) if isinstance(k, Const)}
    target = pairs.get("class_path")
    if not (isinstance(target, Const) and isinstance(target.value, str)):
        return value
    init = pairs.get("init_args")
    keywords = tuple(zip((k.value for k in init.keys), init.values)) if isinstance(init, DictDisplay) else ()
    return Call(Name(target.value, call.span, target.value, ""), (), keywords, call.span)
