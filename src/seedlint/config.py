"""Settings: ``[tool.seedlint]`` in pyproject.toml, command-line overrides, target versions.

Configuration errors are reported as ``ConfigError`` naming the offending key, never
as a traceback.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from typing import Any, Dict, List, Mapping, Optional, Tuple

from seedlint.line_length import declared_line_length
from seedlint.rule_codes import RULE_CODES
from seedlint.versions import (
    ANY,
    LIBRARY_PACKAGES,
    Resolution,
    VersionRange,
    find_project_root,
    nearest_ranges,
    range_from_specifiers,
    resolve,
    tomllib,
)


class ConfigError(Exception):
    """A configuration value seedlint cannot use; the message names the key."""


DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".bzr", ".venv", "venv", ".tox", ".nox", ".eggs", "__pycache__",
    "build", "dist", "site-packages", "node_modules", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", ".seedlint_cache", ".ipynb_checkpoints", "__pypackages__",
)


VERSION_SETTINGS = (("torch", "torch_version"), ("lightning", "lightning_version"), ("python", "python_version"))
"""The packages whose declared versions rules read, and the settings that hold them."""


@dataclass(frozen=True)
class Settings:
    select: Tuple[str, ...] = ("SDL",)
    ignore: Tuple[str, ...] = ()
    extend_select: Tuple[str, ...] = ()
    extend_ignore: Tuple[str, ...] = ()
    exclude: Tuple[str, ...] = DEFAULT_EXCLUDES
    extend_exclude: Tuple[str, ...] = ()
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    torch_version: VersionRange = ANY
    lightning_version: VersionRange = ANY
    python_version: VersionRange = ANY
    extra_dataset_classes: Tuple[str, ...] = ()
    extra_loader_classes: Tuple[str, ...] = ()
    extra_sampler_classes: Tuple[str, ...] = ()
    unsafe_fixes: bool = False
    severity: Tuple[Tuple[str, str], ...] = ()
    """Codes or prefixes and the severity their diagnostics get ("error" or "warning")."""
    project_root: Optional[str] = None
    pinned_versions: Tuple[str, ...] = ()
    """Packages ("torch", "lightning", "python") whose version the command line or
    ``[tool.seedlint]`` sets: the same for every file, whatever a folder declares."""
    library_versions: Tuple[Tuple[str, VersionRange], ...] = ()
    """Declared versions of the libraries whose RNGs seedlint knows (``versions.LIBRARY_PACKAGES``)."""
    config_file: Optional[str] = None
    line_length: int = 88
    """The project's line length (see ``line_length``): fixes wrap calls they make longer."""
    version_conflicts: Tuple[str, ...] = ()
    """Declarations that contradict each other (``versions.model``), reported as warnings."""

    def library_version(self, package: str) -> VersionRange:
        return dict(self.library_versions).get(package, ANY)

    def is_selected(self, code: str) -> bool:
        return _most_specific(code, self.select + self.extend_select, self.ignore + self.extend_ignore)

    def is_ignored_in(self, path: str, code: str) -> bool:
        import fnmatch

        relative = self.relative(path)
        for pattern, codes in self.per_file_ignores:
            if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(os.path.basename(path), pattern):
                if any(code.startswith(prefix) for prefix in codes):
                    return True
        return False

    def severity_of(self, code: str, default: str) -> str:
        """The configured severity for a code (the longest matching prefix wins), else ``default``."""
        best = max(((len(prefix), level) for prefix, level in self.severity if code.startswith(prefix)), default=None)
        return best[1] if best else default

    def relative(self, path: str) -> str:
        base = self.project_root or os.getcwd()
        try:
            return os.path.relpath(os.path.abspath(path), base).replace(os.sep, "/")
        except ValueError:
            return path


def unknown_codes(settings: "Settings", known) -> list:
    """(where, code) for every code or prefix in the settings that names no rule."""
    known = tuple(known)
    found = []
    places = [("select", settings.select), ("extend-select", settings.extend_select), ("ignore", settings.ignore)]
    places += [("extend-ignore", settings.extend_ignore)]
    places += [(f"per-file-ignores {glob!r}", codes) for glob, codes in settings.per_file_ignores]
    places += [("severity", tuple(code for code, _ in settings.severity))]
    for where, codes in places:
        for code in codes:
            if not any(rule.startswith(code) for rule in known):
                found.append((where, code))
    return found


def nullified_selections(settings: "Settings", known) -> list:
    """Codes or prefixes selected explicitly that an ignore switches off entirely: ruff warns
    about them, since the selection does nothing."""
    found = []
    explicit = [code for code in settings.select + settings.extend_select if code != "SDL"]
    for code in explicit:
        rules = [rule for rule in known if rule.startswith(code)]
        if rules and not any(settings.is_selected(rule) for rule in rules):
            found.append(code)
    return found


def _most_specific(code: str, selected, ignored) -> bool:
    """ruff's rule: the longest matching prefix decides, and ignore wins a tie."""
    best_select = max((len(p) for p in selected if code.startswith(p)), default=-1)
    best_ignore = max((len(p) for p in ignored if code.startswith(p)), default=-1)
    return best_select >= 0 and best_select > best_ignore


KNOWN_KEYS = {
    "select", "ignore", "extend-select", "extend-ignore", "exclude", "extend-exclude", "per-file-ignores",
    "torch-version", "lightning-version", "python-version", "extra-dataset-classes", "extra-loader-classes",
    "extra-sampler-classes", "unsafe-fixes", "severity",
}


def _codes(key: str, value: Any, where: str = "[tool.seedlint] ") -> Tuple[str, ...]:
    if isinstance(value, str):
        value = [v for v in value.replace(",", " ").split()]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}{key}: expected a list of rule codes such as [\"SDL001\"], got {value!r}")
    codes = tuple(selector(v) for v in value)
    for code in codes:
        if not code.startswith("SDL"):
            raise ConfigError(f"{where}{key}: {code!r} is not a seedlint rule code or prefix (SDL...)")
        if not any(rule.startswith(code) for rule in RULE_CODES):
            raise ConfigError(f"{where}{key}: {code!r} names no seedlint rule (see `seedlint --list-rules`)")
    return codes


def selector(code: str) -> str:
    """A code or prefix as written, upper-cased; ``ALL`` (as in ruff) is every rule."""
    code = code.strip().upper()
    return "SDL" if code == "ALL" else code


def per_file_ignores_option(value: str) -> Tuple[Tuple[str, Tuple[str, ...]], ...]:
    """``--per-file-ignores "tests/*:SDL001,SDL003 scripts/*.py:SDL1"`` (flake8's spelling):
    whitespace-separated ``glob:codes`` entries."""
    found = []
    for entry in value.split():
        glob, colon, codes = entry.rpartition(":")
        if not colon or not glob or not codes:
            raise ConfigError(f"--per-file-ignores: expected GLOB:CODES entries such as \"tests/*:SDL001\", got {entry!r}")
        found.append((glob, _codes(f"per-file-ignores {glob!r}", codes, where="--")))
    return tuple(found)


def _strings(key: str, value: Any) -> Tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"[tool.seedlint] {key}: expected a list of strings, got {value!r}")
    return tuple(value)


_DOTTED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def class_names(key: str, value: Any) -> Tuple[str, ...]:
    """Fully qualified class names such as ``mylib.data.FastLoader``."""
    if isinstance(value, str):
        value = [v for v in value.replace(",", " ").split()]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{key}: expected a list of qualified class names such as [\"mylib.data.FastLoader\"], got {value!r}")
    for name in value:
        if not _DOTTED_NAME.fullmatch(name):
            raise ConfigError(f"{key}: {name!r} is not a qualified class name such as \"mylib.data.FastLoader\"")
    return tuple(value)


_RELEASE = (
    r"[0-9]+(?:\.[0-9]+)*"
    r"(?:\.\*|(?:[._-]?(?:a|b|c|rc|alpha|beta|pre|preview|post|rev|r|dev)[._-]?[0-9]*)*(?:\+[a-z0-9]+(?:[._-][a-z0-9]+)*)?)"
)
_SPECIFIER = re.compile(
    rf"\^\s*{_RELEASE}|{_RELEASE}|(?:===|==|~=|!=|>=|<=|>|<|=)\s*{_RELEASE}(?:\s*,\s*(?:===|==|~=|!=|>=|<=|>|<|=)\s*{_RELEASE})*",
    re.I,
)


def version_option(key: str, value: Any) -> VersionRange:
    """A target version: ``1.8`` (any 1.8.x), or specifiers such as ``>=1.8,<2``."""
    if isinstance(value, float):
        raise ConfigError(f"{key}: write the version as a string (\"{value}\"): as a number, 1.10 would read as 1.1")
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not _SPECIFIER.fullmatch(value.strip()):
        raise ConfigError(f"{key}: expected a version such as \"1.8\" or \">=1.8,<2\", got {value!r}")
    text = value.strip()
    if text.startswith("^"):
        raise ConfigError(f"{key}: write a PEP 440 range such as \">={text[1:]}\" instead of {text!r}")
    try:
        return range_from_specifiers(text, source=key)
    except ValueError:
        raise ConfigError(f"{key}: expected a version such as \"1.8\" or \">=1.8,<2\", got {value!r}") from None


def settings_from_table(table: Mapping[str, Any], base: Settings) -> Settings:
    unknown = sorted(set(table) - KNOWN_KEYS)
    if unknown:
        raise ConfigError(f"[tool.seedlint]: unknown key {unknown[0]!r} (known: {', '.join(sorted(KNOWN_KEYS))})")
    changes: Dict[str, Any] = {}
    for key in ("select", "ignore", "extend-select", "extend-ignore"):
        if key in table:
            changes[key.replace("-", "_")] = _codes(key, table[key])
    for key in ("exclude", "extend-exclude"):
        if key in table:
            changes[key.replace("-", "_")] = _strings(key, table[key])
    for key in ("extra-dataset-classes", "extra-loader-classes", "extra-sampler-classes"):
        if key in table:
            changes[key.replace("-", "_")] = class_names(f"[tool.seedlint] {key}", table[key])
    if "per-file-ignores" in table:
        value = table["per-file-ignores"]
        if not isinstance(value, dict):
            raise ConfigError(f"[tool.seedlint] per-file-ignores: expected a table of \"glob\" = [codes], got {value!r}")
        changes["per_file_ignores"] = tuple((glob, _codes(f"per-file-ignores.{glob}", codes)) for glob, codes in value.items())
    for key, attribute in (("torch-version", "torch_version"), ("lightning-version", "lightning_version"), ("python-version", "python_version")):
        if key in table:
            changes[attribute] = version_option(f"[tool.seedlint] {key}", table[key])
    if "severity" in table:
        value = table["severity"]
        if not isinstance(value, dict) or not all(v in ("error", "warning") for v in value.values()):
            raise ConfigError(f"[tool.seedlint] severity: expected a table of code = \"error\" or \"warning\", got {value!r}")
        changes["severity"] = tuple((code, level) for code, level in zip(_codes("severity", list(value)), value.values()))
    if "unsafe-fixes" in table:
        if not isinstance(table["unsafe-fixes"], bool):
            raise ConfigError(f"[tool.seedlint] unsafe-fixes: expected true or false, got {table['unsafe-fixes']!r}")
        changes["unsafe_fixes"] = table["unsafe-fixes"]
    return replace(base, **changes)


def find_config(start: str) -> Optional[str]:
    """The nearest pyproject.toml with a [tool.seedlint] table, walking up from ``start``."""
    directory = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    while True:
        candidate = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(candidate):
            table = _read_table(candidate)
            if table is not None:
                return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _read_table(path: str) -> Optional[Dict[str, Any]]:
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from None
    table = data.get("tool", {}).get("seedlint")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.seedlint] must be a table")
    return table


def library_declarations(resolution: Resolution) -> Tuple[Tuple[str, VersionRange], ...]:
    return tuple((package, resolution.get(package)) for package in LIBRARY_PACKAGES if resolution.get(package).declared)


def versions_from(resolution: Resolution, pinned: Tuple[str, ...], imported_roots=()) -> Dict[str, Any]:
    """The version settings a resolution gives, except those the user pinned."""
    found = {"torch": resolution.get("torch"), "lightning": resolution.lightning(imported_roots), "python": resolution.get("python")}
    changes: Dict[str, Any] = {
        attribute: found[package] for package, attribute in VERSION_SETTINGS if package not in pinned and found[package].declared
    }
    changes["library_versions"] = library_declarations(resolution)
    return changes


def resolve_root(root: Optional[str]) -> Resolution:
    """The versions the project root declares, with their implied bounds."""
    if root is None:
        return resolve({})
    declared, conflicts = nearest_ranges(root, root)
    return resolve(declared, conflicts=conflicts)


def load_settings(paths: List[str], overrides: Optional[Mapping[str, Any]] = None, config_file: Optional[str] = None) -> Settings:
    """Settings for a run over ``paths``: defaults, then [tool.seedlint], then declared
    versions, then command-line overrides (highest priority)."""
    start = paths[0] if paths else "."
    settings = Settings()
    config_file = config_file or find_config(start)
    if config_file is not None:
        table = _read_table(config_file) or {}
        try:
            settings = settings_from_table(table, settings)
        except ConfigError as error:
            raise ConfigError(f"{config_file}: {error}") from None
        settings = replace(settings, config_file=config_file)
    root = os.path.dirname(config_file) if config_file else find_project_root(start)
    pinned = tuple(k for k, attr in VERSION_SETTINGS if getattr(settings, attr).declared)
    pinned += tuple(k for k, attr in VERSION_SETTINGS if overrides and attr in overrides)
    settings = replace(settings, project_root=root, line_length=declared_line_length(root), pinned_versions=pinned)
    resolution = resolve_root(root)
    settings = replace(settings, version_conflicts=tuple(resolution.conflicts), **versions_from(resolution, pinned))
    if overrides:
        settings = replace(settings, **overrides)
    return settings
