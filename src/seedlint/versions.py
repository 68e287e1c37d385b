"""Target versions: the torch and Lightning versions a project declares it runs on.

Read from the project's own files (pyproject.toml, requirements*.txt, setup.cfg,
setup.py, environment.yml), never from what is installed where seedlint runs, so the
result is the same on every machine. Undeclared means "any version".
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Tuple

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

Version = Tuple[int, ...]

PACKAGES = {
    "torch": "torch",
    "pytorch": "torch",
    "lightning": "lightning",
    "pytorch-lightning": "lightning",
    "lightning-fabric": "lightning",
    "albumentations": "albumentations",
    "albumentationsx": "albumentationsx",
    "imgaug": "imgaug",
    "monai": "monai",
}
LIBRARY_PACKAGES = ("albumentations", "albumentationsx", "imgaug", "monai")
"""Libraries whose declared versions the library-RNG rules read (``knowledge``)."""
PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "environment.yml", ".git")
STRONG_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
"""Markers of a repository or package root, which a nested requirements file does not end."""
_REQUIREMENT = re.compile(
    r"""(?ix)(?:^|[\s"'\[,])
    (torch|pytorch|lightning|pytorch[-_]lightning|lightning[-_]fabric|albumentationsx|albumentations|imgaug|monai)
    (?:\[[^\]]*\])?                # extras
    \s*((?:(?:===|==|~=|!=|>=|<=|>|<|=)\s*[0-9][0-9a-z.*+!-]*\s*,?\s*)*)
    (?=$|[\s"';,#])"""
)
_CLAUSE = re.compile(r"(===|==|~=|!=|>=|<=|>|<|=)\s*([0-9][0-9a-z.*+!-]*)", re.I)


def parse_version(text: str) -> Version:
    numbers = []
    for part in text.split("."):
        match = re.match(r"\d+", part)
        if match is None:
            break
        numbers.append(int(match.group()))
    return tuple(numbers) or (0,)


def _pad(version: Version, length: int = 8) -> Version:
    return tuple(version) + (0,) * (length - len(version))


@dataclass(frozen=True)
class VersionRange:
    """A half-open interval of versions: ``lower <= v < upper`` (None = unbounded)."""

    lower: Optional[Version] = None
    upper: Optional[Version] = None
    declared: bool = False
    source: str = ""

    def may_be_below(self, version: str) -> bool:
        return self.lower is None or _pad(self.lower) < _pad(parse_version(version))

    def may_be_at_least(self, version: str) -> bool:
        return self.upper is None or _pad(self.upper) > _pad(parse_version(version))

    def intersect(self, other: "VersionRange") -> "VersionRange":
        lowers = [v for v in (self.lower, other.lower) if v is not None]
        uppers = [v for v in (self.upper, other.upper) if v is not None]
        sources = ", ".join(s for s in (self.source, other.source) if s)
        return VersionRange(
            max(lowers, key=_pad) if lowers else None,
            min(uppers, key=_pad) if uppers else None,
            self.declared or other.declared,
            sources,
        )

    def overlaps(self, other: "VersionRange") -> bool:
        """Some version lies in both ranges."""
        both = self.intersect(other)
        return both.lower is None or both.upper is None or _pad(both.lower) < _pad(both.upper)

    def within(self, other: "VersionRange") -> bool:
        """Every version of this range lies in ``other``."""
        low = other.lower is None or (self.lower is not None and _pad(self.lower) >= _pad(other.lower))
        high = other.upper is None or (self.upper is not None and _pad(self.upper) <= _pad(other.upper))
        return low and high

    def describe(self) -> str:
        if not self.declared:
            return "any version (none declared)"
        parts = []
        if self.lower is not None:
            parts.append(">=" + ".".join(map(str, self.lower)))
        if self.upper is not None:
            parts.append("<" + ".".join(map(str, self.upper)))
        return ",".join(parts) or "any version"


ANY = VersionRange()


def _bump(version: Version) -> Version:
    """The first version after every release that starts with ``version``."""
    return tuple(version[:-1]) + (version[-1] + 1,)


def range_from_specifiers(specifiers: str, source: str = "") -> VersionRange:
    """``>=1.8,<2`` / ``==1.8.*`` / ``~=1.7.0`` / ``^1.8`` (poetry) / ``1.8`` as a range."""
    result = VersionRange(declared=True, source=source)
    text = specifiers.strip()
    if text.startswith("^"):
        base = parse_version(text[1:])
        head = next((i for i, n in enumerate(base) if n != 0), len(base) - 1)
        return VersionRange(base, _bump(base[: head + 1]), True, source)
    if re.fullmatch(r"[0-9][0-9.]*(\.\*)?", text):
        text = "==" + text
    for operator, raw in _CLAUSE.findall(text):
        version = parse_version(raw)
        if operator in ("==", "===", "="):
            if raw.endswith("*") or operator == "=":
                clause = VersionRange(version, _bump(version))
            else:
                clause = VersionRange(version, version + (0, 0, 0, 1))
        elif operator == ">=":
            clause = VersionRange(lower=version)
        elif operator == ">":
            clause = VersionRange(lower=version + (0, 0, 0, 1))
        elif operator == "<":
            clause = VersionRange(upper=version)
        elif operator == "<=":
            clause = VersionRange(upper=version + (0, 0, 0, 1))
        elif operator == "~=":
            clause = VersionRange(version, _bump(version[:-1]) if len(version) > 1 else None)
        else:
            continue
        result = result.intersect(clause)
    return result


def requirements_in(text: str, source: str) -> Dict[str, VersionRange]:
    """Every torch/Lightning requirement mentioned in a block of text."""
    found: Dict[str, VersionRange] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        for match in _REQUIREMENT.finditer(line):
            package = PACKAGES[match.group(1).lower().replace("_", "-")]
            declared = range_from_specifiers(match.group(2) or "", source)
            found[package] = found[package].intersect(declared) if package in found else declared
    return found


def find_project_root(start: str) -> Optional[str]:
    """The directory of the project ``start`` belongs to: the nearest one above it with a
    pyproject.toml, setup.py, setup.cfg or .git; else the nearest with any project marker
    (a requirements file). A folder that only has its own requirements.txt (an example
    inside a repository) stays part of the repository, whichever file a run starts from;
    its files still get the versions that folder declares (``nearest_declarations``)."""
    directory = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    nearest = None
    while True:
        if any(os.path.exists(os.path.join(directory, marker)) for marker in STRONG_MARKERS):
            return directory
        if nearest is None and any(os.path.exists(os.path.join(directory, marker)) for marker in PROJECT_MARKERS):
            nearest = directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return nearest
        directory = parent


def _pyproject_requirements(path: str) -> Iterable[str]:
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return
    project = data.get("project", {})
    yield from (r for r in project.get("dependencies", []) if isinstance(r, str))
    for group in project.get("optional-dependencies", {}).values():
        yield from (r for r in group if isinstance(r, str))
    for group in data.get("dependency-groups", {}).values():
        yield from (r for r in group if isinstance(r, str))
    poetry = data.get("tool", {}).get("poetry", {})
    tables = [poetry.get("dependencies", {})]
    tables += [g.get("dependencies", {}) for g in poetry.get("group", {}).values() if isinstance(g, dict)]
    for table in tables:
        for name, spec in table.items():
            if isinstance(spec, dict):
                spec = spec.get("version", "")
            if isinstance(spec, str):
                yield f"{name}{'' if spec.strip() in ('', '*') else spec if spec[0] in '<>=!~' else '==' + spec if spec[0].isdigit() else spec}"


def declared_versions(project_root: Optional[str]) -> Dict[str, VersionRange]:
    """torch and Lightning ranges declared by the project, intersected across its files."""
    if project_root is None:
        return {}
    texts: List[Tuple[str, str]] = []
    pyproject = os.path.join(project_root, "pyproject.toml")
    if os.path.isfile(pyproject):
        texts.append(("\n".join(_pyproject_requirements(pyproject)), "pyproject.toml"))
    patterns = ("requirements*.txt", "requirements/*.txt", "setup.cfg", "setup.py", "environment.yml", "environment.yaml")
    for pattern in patterns:
        for path in sorted(glob.glob(os.path.join(project_root, pattern))):
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    texts.append((handle.read(), os.path.relpath(path, project_root)))
            except OSError:
                continue
    found: Dict[str, VersionRange] = {}
    for text, source in texts:
        for package, declared in requirements_in(text, source).items():
            found[package] = found[package].intersect(declared) if package in found else declared
    python = declared_python(project_root)
    if python is not None:
        found["python"] = python
    return found


def nearest_declarations(directory: str, project_root: Optional[str]) -> Dict[str, VersionRange]:
    """Per package, what the folders from ``directory`` up to the project root declare,
    together: an example folder's requirements.txt narrows the range for its files, and the
    repository's own declarations still hold there (its examples run with the package
    installed). Declarations that contradict each other leave the nearest one."""
    found: Dict[str, VersionRange] = {}
    current = os.path.abspath(directory)
    top = os.path.abspath(project_root) if project_root else None
    while True:
        if any(os.path.exists(os.path.join(current, marker)) for marker in PROJECT_MARKERS):
            for package, declared in declared_versions(current).items():
                if package not in found:
                    found[package] = declared
                    continue
                both = found[package].intersect(declared)
                if both.lower is None or both.upper is None or _pad(both.lower) < _pad(both.upper):
                    found[package] = both
            if top is None:
                return found
        if current == top:
            return found
        parent = os.path.dirname(current)
        if parent == current or (top is not None and not (parent + os.sep).startswith(top + os.sep) and parent != top):
            return found
        current = parent


_PYTHON_REQUIRES = re.compile(r"""python_requires\s*=\s*["']?([^"'\n]+)["']?""")


def declared_python(project_root: str) -> Optional[VersionRange]:
    """``requires-python`` (pyproject.toml) or ``python_requires`` (setup.cfg, setup.py)."""
    pyproject = os.path.join(project_root, "pyproject.toml")
    if os.path.isfile(pyproject):
        try:
            with open(pyproject, "rb") as handle:
                value = tomllib.load(handle).get("project", {}).get("requires-python")
        except (OSError, tomllib.TOMLDecodeError):
            value = None
        if isinstance(value, str) and value.strip():
            return range_from_specifiers(value, "pyproject.toml")
    for name in ("setup.cfg", "setup.py"):
        path = os.path.join(project_root, name)
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                match = _PYTHON_REQUIRES.search(handle.read())
        except OSError:
            continue
        if match:
            return range_from_specifiers(match.group(1).strip(), name)
    return None
