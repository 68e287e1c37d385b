"""What a folder's packaging files declare: every requirement, with its file and line.

Read with ``packaging`` (PEP 508 requirements, PEP 440 specifiers): ``pyproject.toml``
(``[project]`` dependencies, optional groups, dependency groups, ``requires-python``,
Poetry tables), ``requirements*.txt`` / ``requirements/*.txt`` / ``constraints*.txt`` and
every file they name with ``-r`` / ``-c`` (lines a saved ``conda list --export`` writes,
``pytorch=1.4.0=build``, are read as conda specs; a requirement ``packaging`` rejects narrows
nothing and is reported), ``setup.cfg``, ``setup.py`` (its requirement strings,
``python_requires``, and the requirements files it opens), ``environment.yml`` (conda specs
and its ``pip:`` list, whose pins replace conda's; several environment files are
alternatives, and a package gets the union of their ranges), and Dockerfiles (the base
image's torch or Python, and what ``pip install`` / ``conda install`` commands pin), which
fill in only what the packaging files leave undeclared, then a Cog build (``cog.yaml``), and
last the install commands a README or INSTALL file shows (``conda create -n x
python=3.10``, ``pip install torch==1.12.1``), each command one alternative; an alternative
that installs a package without a version while others of the same document name one
installs a release no older than the oldest they name. Poetry's ``^``/``~`` and conda's
``=1.8`` are translated to PEP 440 first: packaging does not read them.
"""

from __future__ import annotations

import ast
import configparser
import fnmatch
import glob
import os
import re
from dataclasses import dataclass
from typing import Dict, Iterable, Iterator, List, Optional, Set, Tuple

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name

from seedlint.analysis import inputs
from seedlint.knowledge.ngc_images import NGC_IMAGE, ngc_torch
from seedlint.versions.ranges import VersionRange, range_of
from seedlint.versions.readme_lines import readme_lines
from seedlint.versions.readme_statements import stated_requirements

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

ALIASES = {"pytorch": "torch", "pytorch-cpu": "torch", "pytorch-gpu": "torch", "python3": "python"}
"""Distribution names that stand for another (conda's ``pytorch`` is torch)."""

REQUIREMENT_FILES = ("requirements*.txt", "requirements/*.txt", "requirements*/*.txt", "constraints*.txt")
ENVIRONMENT_FILES = ("environment*.yml", "environment*.yaml", "conda*.yml", "conda*.yaml", "env.yml", "env.yaml")


@dataclass(frozen=True)
class Declaration:
    """One requirement on one package: ``torch>=1.9`` at ``requirements.txt:3``."""

    package: str
    specifier: str
    file: str
    line: int
    narrows: bool = True
    """False for a requirement behind an environment marker (``; python_version < "3.8"``)."""
    alternatives: Tuple[Tuple["Declaration", ...], ...] = ()
    """For a package that several environment files declare: what each file states (the
    files are alternatives, one per platform or variant), and the range is their union."""
    note: str = ""
    """Why the specifier is not the file's text (an unpinned install read as a floor)."""
    unreadable: str = ""
    """The text of a requirement ``packaging`` rejects (``torch>=1.4.*``): it narrows nothing,
    and the run says it was left out."""

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file

    @property
    def reason(self) -> str:
        if self.alternatives:
            return " or ".join("; ".join(d.reason for d in group) for group in self.alternatives)
        if self.note:
            return f"{self.where} `{self.package}` ({self.note})"
        return f"{self.where} `{self.package}{self.specifier}`"

    def range(self) -> VersionRange:
        if self.unreadable:
            return VersionRange()
        if self.alternatives:
            ranges = [_intersection(d.range() for d in group) for group in self.alternatives]
            combined = ranges[0]
            for other in ranges[1:]:
                combined = combined.hull(other)
            return combined
        if not self.narrows:
            return VersionRange(declared=True, reasons=(self.reason + " (under an environment marker)",))
        return range_of(self.specifier, self.reason)


def _intersection(ranges: Iterable[VersionRange]) -> VersionRange:
    found: Optional[VersionRange] = None
    for item in ranges:
        found = item if found is None else found.intersect(item)
    return found if found is not None else VersionRange()


def canonical(name: str) -> str:
    name = canonicalize_name(name)
    return ALIASES.get(name, name)


def _line_of(text: str, needle: str, start: int = 0) -> int:
    index = text.find(needle, start)
    return text.count("\n", 0, index) + 1 if index >= 0 else 0


def _from_requirement(text: str, file: str, line: int, written: bool = True) -> Optional[Declaration]:
    """The declaration a requirement string makes; ``written`` is False for one made up from
    another format (a saved ``conda list``), whose versions need not be PEP 440."""
    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        found = _from_wheel_url(text, file, line)
        named = _NAMED_WITH_A_SPECIFIER.match(text)
        if found is None and named is not None and written:
            return Declaration(canonical(named.group(1)), "", file, line, unreadable=text.strip())
        return found
    narrows = requirement.marker is None or _only_extras(str(requirement.marker))
    return Declaration(canonical(requirement.name), str(requirement.specifier), file, line, narrows)


_NAMED_WITH_A_SPECIFIER = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?:[<>=!~]=?|===)")
"""A requirement that names a project and then an operator: one ``packaging`` rejects for its
version text (``torch>=1.4.*``) is still a statement about that project."""
_MARKER_VARIABLE = re.compile(r"\b(python_version|python_full_version|sys_platform|platform_\w+|os_name|implementation_\w+)\b")


def _only_extras(marker: str) -> bool:
    return not _MARKER_VARIABLE.search(marker)


_WHEEL = re.compile(r"(?:^|/)([A-Za-z0-9_.]+)-([0-9][^-/%+]*)(?:(?:%2B|\+)[^-/]*)?-cp\d+")


def _from_wheel_url(text: str, file: str, line: int) -> Optional[Declaration]:
    """``https://.../torch-1.8.1%2Bcu111-cp38-cp38-linux_x86_64.whl`` pins torch 1.8.1."""
    match = _WHEEL.search(text)
    if match is None:
        return None
    version = match.group(2).split("%2B")[0].split("+")[0]
    try:
        SpecifierSet(f"=={version}")
    except InvalidSpecifier:
        return None
    return Declaration(canonical(match.group(1)), f"=={version}", file, line)


# ---------------------------------------------------------------------- requirements files
def requirements_file(path: str, root: str, seen: Optional[Set[str]] = None) -> List[Declaration]:
    """The requirements of a pip requirements (or constraints) file and the files it names."""
    seen = set() if seen is None else seen
    real = os.path.realpath(path)
    if real in seen:
        return []
    seen.add(real)
    try:
        inputs.read(path)
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return []
    file = os.path.relpath(path, root).replace(os.sep, "/")
    if _CONDA_LIST_HEADER.search(text):
        return _conda_list(text, file)
    found: List[Declaration] = []
    logical = ""
    first_line = 0
    for number, raw in enumerate(text.splitlines(), 1):
        if not logical:
            first_line = number
        line = re.sub(r"(^|\s)#.*", "", raw).strip()
        if line.endswith("\\"):
            logical += line[:-1] + " "
            continue
        logical = (logical + line).strip()
        if not logical:
            continue
        entry, logical = logical, ""
        include = re.match(r"(?:-r|--requirement|-c|--constraint)\s*=?\s*(\S+)", entry)
        if include:
            named = os.path.join(os.path.dirname(path), include.group(1))
            found.extend(requirements_file(named, root, seen))
            continue
        if entry.startswith("-e ") or entry.startswith("--editable"):
            continue
        if entry.startswith("-"):
            entry = re.sub(r"^-\S+(\s+\S+)?\s*", "", entry) if not entry.startswith("--") else ""
            if not entry:
                continue
        if _CONDA_SPEC_LINE.match(entry):
            declaration = _conda_declaration(entry, file, first_line)  # an exported conda environment (`name=1.4.0=build`)
        else:
            declaration = _from_requirement(entry.split(" --", 1)[0].strip(), file, first_line)
        if declaration is not None:
            found.append(declaration)
    return found


_CONDA_SPEC_LINE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*=[^=<>~\s]+(?:=\S+)?$")
"""A line of ``conda list --export`` (``pytorch=1.4.0=py3.7_cuda10.1_0``): one ``=`` after the
name, which no pip requirement has; such a file is read with ``conda create --file``."""
_CONDA_LIST_HEADER = re.compile(r"^#\s*packages in environment at\b|^#\s*Name\s+Version\s+Build\b", re.MULTILINE)


def _conda_list(text: str, file: str) -> List[Declaration]:
    """The packages a saved ``conda list`` names (``torch   2.0.1+cu118   <pip>``): one
    environment, each package at the version it had there."""
    found: List[Declaration] = []
    for number, raw in enumerate(text.splitlines(), 1):
        words = raw.split()
        if len(words) < 2 or raw.lstrip().startswith("#"):
            continue
        declaration = _from_requirement(f"{words[0]}=={words[1]}", file, number, written=False)
        if declaration is not None:
            found.append(declaration)
    return found


def requirement_alternatives(per_file: List[List[Declaration]]) -> List[Declaration]:
    """The declarations of several requirement files of one folder. Files add up
    (``requirements.txt`` and ``requirements-dev.txt``), except where they cannot: a package
    that the files state differently, so that no version satisfies them all, is declared by
    alternative files, one per release, platform or variant (``requirements.txt`` pinning
    ``numpy==1.23.5``, ``requirements_onnx.txt`` ``numpy==1.23.0``, ``requirements_win.txt``
    a bare ``numpy``): it gets the union of what each file states."""
    per_package: Dict[str, List[Tuple[Declaration, ...]]] = {}
    order: List[str] = []
    for declarations in per_file:
        grouped: Dict[str, List[Declaration]] = {}
        for declaration in declarations:
            grouped.setdefault(declaration.package, []).append(declaration)
        for package, group in grouped.items():
            if package not in per_package:
                order.append(package)
            per_package.setdefault(package, []).append(tuple(group))
    def contradicted(groups: List[Tuple[Declaration, ...]]) -> bool:
        together = [d for group in groups for d in group]
        consistent = all(not _intersection(d.range() for d in group).empty for group in groups)
        return len(groups) > 1 and consistent and _intersection(d.range() for d in together).empty

    # One package the files cannot all satisfy shows them to be variants: then a pin in one
    # (`torch==1.13.1` for the ONNX export) does not bind the others (a bare `torch`).
    variants = any(contradicted(per_package[package]) for package in order)
    found: List[Declaration] = []
    for package in order:
        groups = per_package[package]
        together = [d for group in groups for d in group]
        if len(groups) == 1 or not variants or _same_everywhere(groups):
            found.extend(together)
        else:
            first = groups[0][0]
            found.append(Declaration(package, "", first.file, first.line, alternatives=tuple(groups)))
    return found


def _same_everywhere(groups: List[Tuple[Declaration, ...]]) -> bool:
    """Every file states the package alike (the same specifiers)."""
    return len({tuple(sorted(d.specifier for d in group)) for group in groups}) == 1


# ---------------------------------------------------------------------- pyproject.toml
def _poetry_specifier(spec: str) -> Optional[str]:
    """Poetry's constraint syntax as PEP 440: ``^1.8`` -> ``>=1.8,<2.0``; ``~1.8`` ->
    ``>=1.8,<1.9``; ``1.8`` -> ``==1.8``; ``*`` -> no bound."""
    clauses = []
    for part in re.split(r"\s*,\s*|\s+(?=[<>=!~^])", spec.strip()):
        part = part.strip()
        if part in ("", "*"):
            continue
        if part[0] in "^~" and not part.startswith("~="):
            release = [int(n) for n in re.findall(r"\d+", part)]
            if not release:
                return None
            if part[0] == "^":
                head = next((i for i, n in enumerate(release) if n != 0), len(release) - 1)
            else:
                head = min(1, len(release) - 1) if len(release) > 1 else 0
            upper = release[: head + 1]
            upper[-1] += 1
            clauses += [">=" + ".".join(map(str, release)), "<" + ".".join(map(str, upper))]
        elif part[0].isdigit():
            clauses.append("==" + part)
        else:
            clauses.append(part)
    text = ",".join(clauses)
    try:
        SpecifierSet(text)
    except InvalidSpecifier:
        return None
    return text


def pyproject(path: str, root: str) -> Tuple[List[Declaration], Optional[Declaration]]:
    """The requirements and the ``requires-python`` of a pyproject.toml."""
    try:
        inputs.read(path)
        with open(path, "rb") as handle:
            raw = handle.read()
        data = tomllib.loads(raw.decode("utf-8", errors="replace"))
    except (OSError, tomllib.TOMLDecodeError):
        return [], None
    text = raw.decode("utf-8", errors="replace")
    file = os.path.relpath(path, root).replace(os.sep, "/")
    found: List[Declaration] = []
    project = data.get("project", {}) if isinstance(data.get("project"), dict) else {}

    def declared(strings) -> List[Declaration]:
        made = (_from_requirement(requirement, file, _line_of(text, requirement)) for requirement in strings)
        return [declaration for declaration in made if declaration is not None]

    found.extend(declared(_strings(project.get("dependencies"))))
    groups = [declared(_strings(group)) for group in _dict(project.get("optional-dependencies")).values()]
    groups += [declared(_strings(group)) for group in _dict(data.get("dependency-groups")).values()]
    found.extend(_optional_groups(groups, {d.package for d in found}))
    python = None
    requires_python = project.get("requires-python")
    if isinstance(requires_python, str) and requires_python.strip():
        python = _python(requires_python, file, _line_of(text, "requires-python"))
    poetry = _dict(_dict(data.get("tool")).get("poetry"))
    tables = [_dict(poetry.get("dependencies")), _dict(poetry.get("dev-dependencies"))]
    tables += [_dict(_dict(g).get("dependencies")) for g in _dict(poetry.get("group")).values()]
    for table in tables:
        for name, spec in table.items():
            if isinstance(spec, dict):
                spec = spec.get("version", "")
            if not isinstance(spec, str):
                continue
            specifier = _poetry_specifier(spec)
            if specifier is None:
                continue
            line = _line_of(text, f"{name} =") or _line_of(text, f'"{name}"')
            if canonical(name) == "python":
                python = python or _python(specifier, file, line)
            else:
                found.append(Declaration(canonical(name), specifier, file, line))
    return found, python


def _optional_groups(groups: List[List[Declaration]], required: set) -> List[Declaration]:
    """What optional groups (extras, dependency groups) declare. A package the required
    dependencies name keeps their range: the project installs without any extra. One that
    only groups name gets the union of their ranges: extras such as ``cpu`` and ``cu121``
    pinning torch differently are alternatives, not one install."""
    by_package: Dict[str, List[Tuple[Declaration, ...]]] = {}
    for group in groups:
        grouped: Dict[str, List[Declaration]] = {}
        for declaration in group:
            if declaration.package not in required:
                grouped.setdefault(declaration.package, []).append(declaration)
        for package, declarations in grouped.items():
            by_package.setdefault(package, []).append(tuple(declarations))
    found: List[Declaration] = []
    for package, alternatives in by_package.items():
        if len(alternatives) == 1:
            found.extend(alternatives[0])
        else:
            first = alternatives[0][0]
            found.append(Declaration(package, "", first.file, first.line, alternatives=tuple(alternatives)))
    return found


def _python(specifier: str, file: str, line: int) -> Optional[Declaration]:
    try:
        SpecifierSet(specifier.strip())
    except InvalidSpecifier:
        return None
    return Declaration("python", specifier.strip(), file, line)


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def _strings(value) -> Iterator[str]:
    if isinstance(value, list):
        yield from (item for item in value if isinstance(item, str))


# ---------------------------------------------------------------------- setup.cfg / setup.py
def setup_cfg(path: str, root: str) -> Tuple[List[Declaration], Optional[Declaration]]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        inputs.read(path)
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        parser.read_string(text)
    except (OSError, configparser.Error):
        return [], None
    file = os.path.relpath(path, root).replace(os.sep, "/")
    found: List[Declaration] = []
    values: List[str] = []
    if parser.has_option("options", "install_requires"):
        values.append(parser.get("options", "install_requires"))
    if parser.has_section("options.extras_require"):
        values.extend(value for _, value in parser.items("options.extras_require"))
    for value in values:
        for requirement in (line.strip() for line in value.splitlines()):
            if requirement and not requirement.startswith("#"):
                declaration = _from_requirement(requirement, file, _line_of(text, requirement))
                if declaration is not None:
                    found.append(declaration)
    python = None
    if parser.has_option("options", "python_requires"):
        python = _python(parser.get("options", "python_requires"), file, _line_of(text, "python_requires"))
    return found, python


_REQUIREMENT_KEYWORDS = ("install_requires", "extras_require", "requires", "tests_require", "setup_requires")


def setup_py(path: str, root: str, seen: Set[str]) -> Tuple[List[Declaration], Optional[Declaration]]:
    """Requirement strings of a setup.py (in its requirement keywords, or carrying a
    version anywhere), its ``python_requires``, and the requirements files it opens."""
    try:
        inputs.read(path)
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError):
        return [], None
    file = os.path.relpath(path, root).replace(os.sep, "/")
    found: List[Declaration] = []
    python = None
    in_keyword: Set[int] = set()
    group_names: Set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in _REQUIREMENT_KEYWORDS:
            in_keyword.update(id(inner) for inner in ast.walk(node.value))
        if isinstance(node, ast.Dict):
            keys = {id(key) for key in node.keys if key is not None}
            in_keyword.difference_update(keys)
            group_names.update(keys)  # extras_require={"dev": [...]}: a group, not a package
        if isinstance(node, ast.keyword) and node.arg == "python_requires" and isinstance(node.value, ast.Constant):
            if isinstance(node.value.value, str):
                python = _python(node.value.value, file, node.value.lineno)
    directory = os.path.dirname(path)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) or id(node) in group_names:
            continue
        value = node.value.strip()
        if value.endswith(".txt") and "\n" not in value:
            named = os.path.join(directory, value)
            if os.path.isfile(named):
                found.extend(requirements_file(named, root, seen))
            continue
        if not value or "\n" in value:
            continue
        declaration = _from_requirement(value, file, node.lineno)
        if declaration is None:
            continue
        if declaration.specifier or id(node) in in_keyword:
            found.append(declaration)
    return found, python


# ---------------------------------------------------------------------- environment.yml
_CONDA = re.compile(r"^(?:[\w.-]+::)?([A-Za-z0-9_.-]+)\s*(.*)$")


def _conda_specifier(spec: str) -> Optional[str]:
    """conda's ``=1.8`` (any 1.8.x), ``=1.8.1=build``, ``==1.8.1``, ``>=1.8,<2`` as PEP 440."""
    spec = spec.strip()
    if not spec:
        return ""
    if spec.startswith("=") and not spec.startswith("=="):
        version = spec[1:].split("=", 1)[0].strip()
        spec = f"=={version}" if version.endswith("*") else f"=={version}.*"
    elif spec.startswith("=="):
        spec = "==" + spec[2:].split("=", 1)[0]
    elif spec[0].isdigit():
        spec = f"=={spec.split('=', 1)[0]}.*"
    try:
        SpecifierSet(spec)
    except InvalidSpecifier:
        return None
    return spec


def _yaml_file(path: str) -> Optional[Tuple[str, object]]:
    """A YAML file's text and content; None when it cannot be read or parsed (it declares nothing)."""
    try:
        import yaml

        inputs.read(path)
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        return text, yaml.safe_load(text)
    except Exception:
        return None


def environment_yml(path: str, root: str) -> Tuple[List[Declaration], Optional[Declaration]]:
    loaded = _yaml_file(path)
    if loaded is None:
        return [], None
    text, data = loaded
    file = os.path.relpath(path, root).replace(os.sep, "/")
    conda: List[Declaration] = []
    pip: List[Declaration] = []
    python = None
    dependencies = data.get("dependencies", []) if isinstance(data, dict) else []
    for item in dependencies if isinstance(dependencies, list) else []:
        if isinstance(item, dict):
            for requirement in _strings(item.get("pip")):
                declaration = _from_requirement(requirement, file, _line_of(text, requirement))
                if declaration is not None:
                    pip.append(declaration)
            continue
        if not isinstance(item, str):
            continue
        match = _CONDA.match(item.strip())
        if match is None:
            continue
        specifier = _conda_specifier(match.group(2))
        if specifier is None:
            continue
        declaration = Declaration(canonical(match.group(1)), specifier, file, _line_of(text, item))
        if declaration.package == "python":
            python = python or declaration
        else:
            conda.append(declaration)
    # The pip list installs after the conda packages: what it pins replaces conda's pin.
    reinstalled = {d.package for d in pip}
    return [d for d in conda if d.package not in reinstalled] + pip, python


def environment_alternatives(results: List[Tuple[List[Declaration], Optional[Declaration]]]) -> Tuple[List[Declaration], List[Declaration]]:
    """The declarations of several environment files of one folder (``environment.yml``,
    ``environment_macos.yml``, ``environment_cuda11.yml``): each is one way to install the
    project, so a package several of them declare gets the union of their ranges."""
    per_result: List[Dict[str, List[Declaration]]] = []
    for declarations, python in results:
        grouped: Dict[str, List[Declaration]] = {}
        for declaration in declarations + ([python] if python is not None else []):
            grouped.setdefault(declaration.package, []).append(declaration)
        per_result.append(grouped)
    left_open = _left_open_by_an_alternative(per_result)
    per_package: Dict[str, List[Tuple[Declaration, ...]]] = {}
    for number, grouped in enumerate(per_result):
        for package, group in grouped.items():
            if (number, package) not in left_open:
                per_package.setdefault(package, []).append(tuple(group))
    found: List[Declaration] = []
    pythons: List[Declaration] = []
    for package, groups in per_package.items():
        groups = _unpinned_as_floors(groups)
        if len(groups) == 1:
            chosen = list(groups[0])
        else:
            first = groups[0][0]
            chosen = [Declaration(package, "", first.file, first.line, alternatives=tuple(groups))]
        (pythons if package == "python" else found).extend(chosen)
    return found, pythons[:1]


def _unpinned_as_floors(groups: List[Tuple[Declaration, ...]]) -> List[Tuple[Declaration, ...]]:
    """An install that names a package without a version (``conda install pytorch``) beside
    a version the same document names ("Pytorch 1.11" in its requirements list) gets a release
    no older than that one, not any release: it is read as the oldest lower bound the
    document's other environments give. Another file's pin (a Dockerfile's newer torch) says
    nothing of the release that document's install gets."""
    def unpinned(group: Tuple[Declaration, ...]) -> bool:
        return all(not d.specifier and not d.alternatives and d.narrows for d in group)

    changed = []
    for group in groups:
        files = {d.file for d in group}
        named = [other for other in groups if not unpinned(other) and {d.file for d in other} <= files]
        lowers = [_intersection(d.range() for d in other).lower for other in named]
        if not unpinned(group) or not lowers or any(lower is None for lower in lowers):
            changed.append(group)
            continue
        oldest = min(lower.version for lower in lowers)
        note = f"unpinned: no older than {oldest}, the oldest release the same instructions name"
        changed.append(tuple(Declaration(d.package, f">={oldest}", d.file, d.line, note=note) for d in group))
    return changed


def _left_open_by_an_alternative(per_result: List[Dict[str, List[Declaration]]]) -> Set[Tuple[int, str]]:
    """(result, package) pairs to leave out: two results that pin a package differently are
    two environments, and a package one of them declares and the other does not may be any
    version in the other (a demo container's ``torchvision==0.11.1`` says nothing of the
    README's training environment with ``pytorch 1.8.0``). Results that share no package,
    or pin what they share alike, are steps of one install."""
    def states(grouped: Dict[str, List[Declaration]], package: str) -> Tuple[str, ...]:
        return tuple(sorted(d.specifier for d in grouped[package]))

    left: Set[Tuple[int, str]] = set()
    for first, one in enumerate(per_result):
        for second, other in enumerate(per_result):
            if first == second:
                continue
            shared = one.keys() & other.keys()
            if any(states(one, package) != states(other, package) for package in shared):
                left.update((first, package) for package in one.keys() - other.keys())
    return left


# ---------------------------------------------------------------------- Dockerfiles
DOCKER_FILES = ("Dockerfile", "Dockerfile.*", "*.Dockerfile", "*.dockerfile", "docker/Dockerfile*")
_DOCKER_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")
_INSTALLERS = {("pip", "install"): "pip", ("pip3", "install"): "pip", ("conda", "install"): "conda", ("mamba", "install"): "conda"}
_OPTIONS_WITH_VALUES = frozenset({
    "-r", "--requirement", "-c", "--constraint", "-f", "--find-links", "-i", "--index-url", "--extra-index-url",
    "-e", "--editable", "-t", "--target", "--prefix", "--root", "-c", "--channel", "-n", "--name", "-p", "--platform",
    "--python-version", "--implementation", "--abi", "--trusted-host", "--global-option", "--install-option",
    "--config-settings", "--progress-bar", "--cache-dir", "--log", "--src", "--upgrade-strategy",
})
IMAGE_VERSIONS = {"pytorch/pytorch": "torch", "python": "python"}
# NVIDIA's NGC images are tagged by release month (``nvcr.io/nvidia/pytorch:21.11-py3``): see
# ``knowledge.ngc_images`` for the torch each one ships.
"""Base images whose tag starts with the version of what they install: ``pytorch/pytorch:1.10.0-cuda11.3-
cudnn8-devel`` has torch 1.10.0, ``python:3.8-slim`` Python 3.8 (their tagging schemes on Docker Hub)."""


def dockerfile(path: str, root: str) -> Tuple[List[Declaration], Optional[Declaration]]:
    """What a Dockerfile installs: the base image's torch or Python (``FROM pytorch/pytorch:1.10.0-...``)
    and the packages of its ``pip install`` / ``conda install`` commands, ``ARG``/``ENV``
    values substituted."""
    try:
        inputs.read(path)
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return [], None
    file = os.path.relpath(path, root).replace(os.sep, "/")
    variables: Dict[str, str] = {}
    found: List[Declaration] = []
    python = None
    for line_number, instruction in _instructions(text):
        keyword, _, rest = instruction.partition(" ")
        keyword = keyword.upper()
        rest = _DOCKER_VARIABLE.sub(lambda m: variables.get(m.group(1), m.group(0)), rest.strip())
        if keyword in ("ARG", "ENV"):
            for assignment in _split_shell(rest):
                name, equals, value = assignment.partition("=")
                if equals:
                    variables[name] = value
        elif keyword == "FROM":
            image = next((word for word in rest.split() if not word.startswith("--")), "")
            declaration = _from_image(image, file, line_number)
            if declaration is not None and declaration.package == "python":
                python = python or declaration
            elif declaration is not None:
                found.append(declaration)
        elif keyword == "RUN":
            found.extend(_installed(rest, file, line_number))
    return found, python


def _instructions(text: str) -> Iterator[Tuple[int, str]]:
    """Each instruction with its first line, continuation lines joined, comments dropped."""
    pending: List[str] = []
    start = 0
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if pending and stripped.startswith("#"):
            continue
        if not pending:
            start = number
        pending.append(stripped[:-1] if stripped.endswith("\\") else stripped)
        if not stripped.endswith("\\"):
            yield start, " ".join(pending)
            pending = []
    if pending:
        yield start, " ".join(pending)


def _split_shell(text: str) -> List[str]:
    import shlex

    try:
        return shlex.split(text, comments=False)
    except ValueError:
        return text.split()


def _from_image(image: str, file: str, line: int) -> Optional[Declaration]:
    name, _, tag = image.partition(":")
    if name.lower() == NGC_IMAGE:
        shipped = ngc_torch(tag)
        return Declaration("torch", f"=={shipped}", file, line) if shipped is not None else None
    package = IMAGE_VERSIONS.get(name.lower())
    match = re.match(r"\d+(?:\.\d+)+", tag)
    if package is None or match is None:
        return None
    version = match.group(0)
    specifier = f"=={version}" if package == "torch" and version.count(".") >= 2 else f"=={version}.*"
    return Declaration(package, specifier, file, line)


_SHELL_COMMENT = re.compile(r"(?:^|\s)#.*$")
"""A shell comment: ``#`` at the start of a word, to the end of the line
(``conda install pytorch  # use the version of CUDA you have``)."""


def _installed(command: str, file: str, line: int, more_installers: Optional[Dict[Tuple[str, str], str]] = None) -> List[Declaration]:
    found: List[Declaration] = []
    for part in re.split(r"&&|\|\||;|\|", command):
        words = _split_shell(_SHELL_COMMENT.sub("", part))
        while words and words[0] in ("python", "python3", "-m", "sudo", "RUN"):
            words = words[1:]
        kind = _INSTALLERS.get(tuple(words[:2])) or (more_installers or {}).get(tuple(words[:2]))
        if kind is None:
            continue
        skip = False
        for word in words[2:]:
            if skip:
                skip = False
                continue
            if word.startswith("-"):
                skip = word in _OPTIONS_WITH_VALUES
                continue
            declaration = _from_requirement(word, file, line, written=False) if kind == "pip" else _conda_declaration(word, file, line)
            if declaration is not None:
                found.append(declaration)
    return found


def _conda_declaration(word: str, file: str, line: int) -> Optional[Declaration]:
    match = _CONDA.match(word.strip())
    if match is None:
        return None
    specifier = _conda_specifier(match.group(2))
    return Declaration(canonical(match.group(1)), specifier, file, line) if specifier is not None else None


# ---------------------------------------------------------------------- platform
LINUX_CONDA_PACKAGES = frozenset({
    "_libgcc_mutex", "libgcc-ng", "libstdcxx-ng", "ld_impl_linux-64", "ld_impl_linux-aarch64", "libgomp",
    "sysroot_linux-64", "kernel-headers_linux-64",
})
"""Conda packages built for Linux only (the GNU C runtime of the defaults and conda-forge
channels: their linux-64 / linux-aarch64 subdirectories have them, osx-* and win-* do not).
An environment file that pins one was exported on Linux and installs nowhere else."""
INSTALL_FILES = ("pyproject.toml", "setup.py", "setup.cfg") + REQUIREMENT_FILES + ENVIRONMENT_FILES + DOCKER_FILES


def folder_platform(directory: str, root: str) -> Tuple[List[str], bool]:
    """How a folder says the project is installed: the reasons its Linux-only environments
    give (a Dockerfile, an environment file exported on Linux), and whether it also has an
    installation any platform can use (requirements, pyproject, setup, a portable
    environment file)."""
    inputs.read(directory)
    linux: List[str] = []
    portable = False
    for pattern in INSTALL_FILES:
        for named in sorted(glob.glob(os.path.join(directory, pattern))):
            file = os.path.relpath(named, root).replace(os.sep, "/")
            if _is_dockerfile(named):
                if not _windows_image(named):
                    linux.append(f"{file}: the project's container image is Linux")
                continue
            if any(fnmatch.fnmatch(os.path.basename(named), p) for p in ENVIRONMENT_FILES):
                pinned = _linux_conda_package(named)
                if pinned is not None:
                    linux.append(f"{file}:{pinned[1]} pins `{pinned[0]}`, a conda package built for Linux only")
                    continue
            portable = True
    return linux, portable


def _is_dockerfile(path: str) -> bool:
    base = os.path.basename(path)
    return base == "Dockerfile" or base.startswith("Dockerfile.") or base.lower().endswith(".dockerfile")


def _windows_image(path: str) -> bool:
    try:
        inputs.read(path)
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return True
    return any(
        keyword.upper() == "FROM" and "windows" in rest.lower() for _, line in _instructions(text)
        for keyword, _, rest in [line.partition(" ")]
    )


def _linux_conda_package(path: str) -> Optional[Tuple[str, int]]:
    try:
        inputs.read(path)
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    for number, line in enumerate(lines, 1):
        item = line.strip().lstrip("-").strip()
        match = _CONDA.match(item)
        if match is not None and match.group(1).lower() in LINUX_CONDA_PACKAGES:
            return match.group(1), number
    return None


# ---------------------------------------------------------------------- cog.yaml
COG_FILES = ("cog.yaml",)


def cog_yaml(path: str, root: str) -> Tuple[List[Declaration], Optional[Declaration]]:
    """A Cog container's build (``build.python_version``, ``build.python_packages``, and the
    requirements file ``build.python_requirements`` names): one environment the project runs in."""
    loaded = _yaml_file(path)
    if loaded is None:
        return [], None
    text, data = loaded
    build = data.get("build") if isinstance(data, dict) else None
    if not isinstance(build, dict):
        return [], None
    file = os.path.relpath(path, root).replace(os.sep, "/")
    found: List[Declaration] = []
    for requirement in _strings(build.get("python_packages")):
        declaration = _from_requirement(requirement, file, _line_of(text, requirement))
        if declaration is not None:
            found.append(declaration)
    requirements = build.get("python_requirements")
    if isinstance(requirements, str):
        named = os.path.join(os.path.dirname(path), requirements)
        if os.path.isfile(named):
            found.extend(requirements_file(named, root))
    python = None
    version = build.get("python_version")
    if isinstance(version, (str, float, int)) and re.match(r"^\d+\.\d+", str(version)):
        python = Declaration("python", f"=={version}.*" if str(version).count(".") == 1 else f"=={version}", file, _line_of(text, "python_version"))
    return found, python


# ---------------------------------------------------------------------- README install commands
README_FILES = ("README*", "readme*", "Readme*", "INSTALL*", "install*.md", "docs/INSTALL*", "docs/install*", "docs/installation*")
_README_INSTALLERS = {("conda", "create"): "conda", ("mamba", "create"): "conda"}
_PROMPT = re.compile(r"^(?:\$|>|#|%|!)\s*")
_INLINE_CODE = re.compile(r"`([^`]+)`")
_PLATFORM_SECTION = re.compile(r"colab|kaggle|docker|windows|mac\s?os|\bmac\b|apple|jetson|rocm|sagemaker", re.IGNORECASE)
_INSTALLER_WORDS = ("pip ", "pip3 ", "conda ", "mamba ", "python -m pip ", "python3 -m pip ")


def readme(path: str, root: str) -> List[Tuple[List[Declaration], Optional[Declaration]]]:
    """The install commands a README or INSTALL file shows (``conda create -n x python=3.10``,
    ``pip install torch==1.12.1``), each one way to install the project: one result per command."""
    try:
        inputs.read(path)
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return []
    file = os.path.relpath(path, root).replace(os.sep, "/")
    found: List[Tuple[List[Declaration], Optional[Declaration]]] = []
    for line_number, command in _command_lines(text):
        installed = _installed(command, file, line_number, _README_INSTALLERS)
        if not installed:
            continue
        python = next((d for d in installed if d.package == "python"), None)
        found.append(([d for d in installed if d.package != "python"], python))
    return found


def readme_statements(path: str, root: str) -> List[Tuple[List[Declaration], Optional[Declaration]]]:
    """The versions a README states in prose (``* pytorch 1.8.0`` under "Requirements",
    "tested with Python 3.5, PyTorch 0.4.0"): one environment, the one the authors describe.
    A package it states twice differently ("PyTorch 1.6; 1.8 works too") may be either."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return []
    file = os.path.relpath(path, root).replace(os.sep, "/")
    stated: Dict[str, List[Declaration]] = {}
    for line, pairs in stated_requirements(text):
        for package, specifier in pairs:
            same = stated.setdefault(package, [])
            if all(d.specifier != specifier for d in same):
                same.append(Declaration(package, specifier, file, line))
    declarations = [
        group[0] if len(group) == 1 else Declaration(package, "", group[0].file, group[0].line, alternatives=tuple((d,) for d in group))
        for package, group in stated.items()
    ]
    if not declarations:
        return []
    python = next((d for d in declarations if d.package == "python"), None)
    return [([d for d in declarations if d.package != "python"], python)]


def _command_lines(text: str) -> Iterator[Tuple[int, str]]:
    """Lines that start with an installer (after a shell prompt), continuation lines joined,
    and inline code spans that hold one; not those of a section about one platform or
    service (``Google Colab Setup``, ``Docker``, ``Windows``): that is one environment among
    others the README leaves open."""
    pending: List[str] = []
    start = 0
    for number, line, headings, _ in readme_lines(text):
        raw = line.strip()
        stripped = _PROMPT.sub("", raw.strip("`").strip())
        if pending:
            pending.append(stripped[:-1] if stripped.endswith("\\") else stripped)
            if not stripped.endswith("\\"):
                yield start, " ".join(pending)
                pending = []
            continue
        if any(_PLATFORM_SECTION.search(heading) for heading in headings):
            continue
        spans = raw.startswith("`") and raw.count("`") > 2  # `pip install a` or `pip install b`: each span a command
        if spans or not stripped.startswith(_INSTALLER_WORDS):
            for inline in _INLINE_CODE.findall(line):  # prose naming a command: "For CUDA 10.2: `pip install torch==1.8.1`"
                if _PROMPT.sub("", inline.strip()).startswith(_INSTALLER_WORDS):
                    yield number, _PROMPT.sub("", inline.strip())
            continue
        if stripped.endswith("\\"):
            start = number
            pending = [stripped[:-1]]
        else:
            yield number, stripped


def _pip_or_conda(packaging: List[Declaration], environments: List[Declaration]) -> List[Declaration]:
    """Packaging files and conda environment files together. Where the two pin a package so
    that no version satisfies both, they are the README's two routes ("for pip users" /
    "for conda users"), not one install: the package gets the union of the two."""
    found = list(packaging)
    for declaration in environments:
        pip_side = tuple(d for d in found if d.package == declaration.package)
        if pip_side and _intersection(d.range() for d in pip_side + (declaration,)).empty:
            found = [d for d in found if d not in pip_side]
            first = pip_side[0]
            routes = pip_side[0].alternatives if len(pip_side) == 1 and pip_side[0].alternatives else (pip_side,)
            found.append(Declaration(declaration.package, "", first.file, first.line, alternatives=routes + ((declaration,),)))
        else:
            found.append(declaration)
    return found


# ---------------------------------------------------------------------- one folder
def folder_declarations(directory: str, root: Optional[str] = None) -> List[Declaration]:
    """Every declaration the packaging files of ``directory`` make (requires-python as
    package ``python``), in a stable order. Paths are relative to ``root``."""
    root = root or directory
    inputs.read(directory)
    found: List[Declaration] = []
    pythons: List[Declaration] = []
    seen: Set[str] = set()

    def take(result: Tuple[List[Declaration], Optional[Declaration]]) -> None:
        found.extend(result[0])
        if result[1] is not None:
            pythons.append(result[1])

    path = os.path.join(directory, "pyproject.toml")
    if os.path.isfile(path):
        take(pyproject(path, root))
    path = os.path.join(directory, "setup.cfg")
    if os.path.isfile(path):
        take(setup_cfg(path, root))
    path = os.path.join(directory, "setup.py")
    if os.path.isfile(path):
        take(setup_py(path, root, seen))
    requirement_files = sorted({named for pattern in REQUIREMENT_FILES for named in glob.glob(os.path.join(directory, pattern))})
    found.extend(requirement_alternatives([requirements_file(named, root, seen) for named in requirement_files]))
    environments = sorted({named for pattern in ENVIRONMENT_FILES for named in glob.glob(os.path.join(directory, pattern))})
    declared_by_environments, environment_python = environment_alternatives([environment_yml(named, root) for named in environments])
    found = _pip_or_conda(found, declared_by_environments)
    pythons.extend(environment_python)
    # Dockerfiles, a Cog build, and the install commands and the versions a README shows
    # are each one environment the project runs in: they fill in what the packaging files
    # leave undeclared (a bare ``torch`` in requirements.txt leaves its version open), and
    # where they differ on a package the project runs on any of them.
    declared = {d.package for d in found if d.specifier or d.alternatives} | ({"python"} if pythons else set())
    elsewhere: List[Tuple[List[Declaration], Optional[Declaration]]] = []
    for pattern in DOCKER_FILES:
        elsewhere.extend(dockerfile(named, root) for named in sorted(glob.glob(os.path.join(directory, pattern))))
    elsewhere.extend(cog_yaml(named, root) for named in (os.path.join(directory, name) for name in COG_FILES) if os.path.isfile(named))
    readmes = sorted({named for pattern in README_FILES for named in glob.glob(os.path.join(directory, pattern)) if os.path.isfile(named)})
    for named in readmes:
        elsewhere.extend(readme(named, root))
        elsewhere.extend(readme_statements(named, root))
    shown, shown_python = environment_alternatives([result for result in elsewhere if result[0] or result[1] is not None])
    found.extend(d for d in shown if d.package not in declared)
    if "python" not in declared:
        pythons.extend(shown_python)
    return found + pythons[:1]


def by_package(declarations: Iterable[Declaration]) -> Dict[str, VersionRange]:
    """Per package, the intersection of what the declarations state."""
    ranges: Dict[str, VersionRange] = {}
    for declaration in declarations:
        declared = declaration.range()
        ranges[declaration.package] = ranges[declaration.package].intersect(declared) if declaration.package in ranges else declared
    return ranges
