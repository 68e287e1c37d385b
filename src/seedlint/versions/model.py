"""The version model: per package, the range a file's program can run on, and why.

A package's range is the intersection of
1. what the packaging files declare, nearest folder first (an example folder's own
   requirements narrow the repository's; a contradiction leaves the nearest);
2. the APIs the file's program uses outside a feature check (``torch.compile``: torch>=2.0;
   ``Trainer.from_argparse_args``: Lightning<2.0), from ``knowledge.api_versions``;
3. the bounds other packages imply (``lightning>=2.0`` needs torch>=1.11; requires-python
   >=3.10 needs torch>=1.11), from ``knowledge.version_bounds``, applied until nothing changes.
``lightning`` and ``pytorch-lightning`` are two packages: a module is judged by the one it
imports. An empty intersection is a conflict: it is reported, and the statement that
would empty the range is left out.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from seedlint.analysis import inputs
from seedlint.knowledge.api_versions import ERAS_BY_API
from seedlint.knowledge.version_bounds import IMPLIED
from seedlint.versions.declarations import by_package, folder_declarations, folder_platform
from seedlint.versions.ranges import ANY, VersionRange, range_of

PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "environment.yml", "environment.yaml", "Dockerfile", "docker/Dockerfile", "cog.yaml", ".git")
STRONG_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
"""Markers of a repository or package root, which a nested requirements file does not end."""
LIGHTNING_PACKAGES = {"pytorch_lightning": "pytorch-lightning", "lightning": "lightning", "lightning_fabric": "lightning-fabric"}
"""Import roots of the Lightning distributions, and the distribution each belongs to."""


@dataclass
class Resolution:
    """Every package's range for one program, and the statements that contradicted the others."""

    ranges: Dict[str, VersionRange] = field(default_factory=dict)
    conflicts: List[str] = field(default_factory=list)

    def get(self, package: str) -> VersionRange:
        return self.ranges.get(package, ANY)

    def lightning(self, imported: Iterable[str] = ()) -> VersionRange:
        """The Lightning range for a module that imports these roots: the distributions it
        imports; a module that imports none may run under any declared one."""
        wanted = [LIGHTNING_PACKAGES[root] for root in imported if root in LIGHTNING_PACKAGES]
        declared = [name for name in LIGHTNING_PACKAGES.values() if self.get(name).declared]
        chosen = [name for name in wanted if self.get(name).declared] or ([] if wanted else declared)
        result: Optional[VersionRange] = None
        for name in sorted(set(chosen)):
            result = self.get(name) if result is None else result.hull(self.get(name))
        return result or ANY


def find_project_root(start: str) -> Optional[str]:
    """The directory of the project ``start`` belongs to: the nearest one above it with a
    pyproject.toml, setup.py, setup.cfg or .git; else the nearest with any project marker
    (a requirements file, a Dockerfile). A folder that only has its own requirements.txt (an example
    inside a repository) stays part of the repository, whichever file a run starts from;
    its files still get the versions that folder declares (``nearest_ranges``)."""
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


@inputs.replayed
def folder_ranges(directory: str, root: Optional[str]) -> Tuple[Tuple[Tuple[str, VersionRange], ...], Tuple[str, ...]]:
    """What one folder's packaging files declare, per package (paths relative to ``root``),
    and the requirements ``packaging`` could not read there, which narrow nothing."""
    declarations = folder_declarations(directory, root or directory)
    unreadable = tuple(
        f"{d.package}: {d.where} `{d.unreadable}` is not a valid requirement (PEP 508/440); left out"
        for d in declarations if d.unreadable
    )
    return tuple(sorted(by_package(d for d in declarations if not d.unreadable).items())), unreadable


def _has_marker(directory: str) -> bool:
    if any(os.path.exists(os.path.join(directory, marker)) for marker in PROJECT_MARKERS):
        return True
    return any(name.startswith(("requirements", "environment", "constraints")) for name in _listing(directory))


def _listing(directory: str) -> List[str]:
    inputs.read(directory)
    try:
        return os.listdir(directory)
    except OSError:
        return []


def nearest_ranges(directory: str, project_root: Optional[str]) -> Tuple[Dict[str, VersionRange], List[str]]:
    """Per package, what the folders from ``directory`` up to the project root declare,
    together: an example folder's requirements narrow the range for its files, and the
    repository's own declarations still hold there. A folder's declaration that
    contradicts a nearer one is left out, and said."""
    found: Dict[str, VersionRange] = {}
    conflicts: List[str] = []
    current = os.path.abspath(directory)
    top = os.path.abspath(project_root) if project_root else None
    while True:
        if _has_marker(current):
            ranges, unreadable = folder_ranges(current, top or current)
            conflicts.extend(unreadable)
            for package, declared in ranges:
                if package not in found:
                    found[package] = declared
                    continue
                both = found[package].intersect(declared)
                if both.empty:
                    conflicts.append(f"{package}: {declared.source} contradicts the nearer {found[package].source}; the nearer holds")
                else:
                    found[package] = both
            if top is None:
                break
        if current == top:
            break
        parent = os.path.dirname(current)
        if parent == current or (top is not None and not (parent + os.sep).startswith(top + os.sep) and parent != top):
            break
        current = parent
    return found, conflicts


@inputs.replayed
def declared_linux(directory: str, project_root: Optional[str]) -> Optional[str]:
    """Why the project installs on Linux only, when every installation the folders from
    ``directory`` up to the project root offer is Linux-only (a Dockerfile, an environment
    file exported on Linux), else None."""
    linux: List[str] = []
    current = os.path.abspath(directory)
    top = os.path.abspath(project_root) if project_root else None
    while True:
        reasons, portable = folder_platform(current, top or current)
        if portable:
            return None
        linux.extend(reasons)
        if top is None or current == top:
            break
        parent = os.path.dirname(current)
        if parent == current or not (parent + os.sep).startswith(top + os.sep) and parent != top:
            break
        current = parent
    return linux[0] if linux else None


def evidence_ranges(uses: Iterable[Tuple[str, str, int]]) -> Dict[str, VersionRange]:
    """Ranges from versioned APIs a program uses: (api, file, line) triples."""
    found: Dict[str, VersionRange] = {}
    uses = sorted(set(uses))
    written = {api[:-1] for api, _, _ in uses if api.endswith("=")}
    for api, file, line in uses:
        era = ERAS_BY_API.get(api)
        if era is None or era.unless_written in written:
            continue
        stated = range_of(era.bound, f"{file}:{line} uses `{api}` ({era.source})")
        found[era.package] = found[era.package].intersect(stated) if era.package in found else stated
    return found


def resolve(
    declared: Dict[str, VersionRange], evidence: Optional[Dict[str, VersionRange]] = None, conflicts: Sequence[str] = ()
) -> Resolution:
    """Declarations, then the program's API evidence, then implied bounds until stable."""
    resolution = Resolution(conflicts=list(conflicts))
    for package, declared_range in declared.items():
        if declared_range.empty:
            resolution.conflicts.append(f"{package}: {declared_range.source} admit no version together; treated as undeclared")
            declared_range = VersionRange(reasons=declared_range.reasons)
        resolution.ranges[package] = declared_range
    for package, stated in (evidence or {}).items():
        _narrow(resolution, package, stated, "uses an API outside")
    for _ in range(len(IMPLIED)):
        changed = False
        for (dependent_name, target), stated in _strongest_implied(resolution).items():
            changed |= _narrow(resolution, target, stated, "implies a bound outside")
        if not changed:
            break
    return resolution


def _strongest_implied(resolution: Resolution) -> Dict[Tuple[str, str], VersionRange]:
    """Per (dependent, target), the tightest bounds the catalogue implies now: one
    ``lightning>=2.0 needs torch>=1.11``, not every older release's weaker bound too."""
    found: Dict[Tuple[str, str], VersionRange] = {}
    for entry in IMPLIED:
        dependent = resolution.ranges.get(entry.dependent)
        if dependent is None or not dependent.declared or dependent.empty or not dependent.within(range_of(entry.when)):
            continue
        reason = f"{entry.dependent} {dependent.describe()} needs {entry.target}{entry.bound} ({entry.source})"
        stated = range_of(entry.bound, reason)
        key = (entry.dependent, entry.target)
        found[key] = found[key].intersect(stated) if key in found else stated
    return found


def _narrow(resolution: Resolution, package: str, stated: VersionRange, how: str) -> bool:
    """Intersect ``package``'s range with ``stated``; True when that changed its bounds."""
    current = resolution.ranges.get(package, ANY)
    both = current.intersect(stated)
    if both.empty:
        message = f"{package}: {_binding(stated, current)} contradicts {_binding(current, stated)}; the first is left out"
        if message not in resolution.conflicts:
            resolution.conflicts.append(message)
        return False
    resolution.ranges[package] = both
    return (both.lower, both.upper, both.declared) != (current.lower, current.upper, current.declared)


def _binding(first: VersionRange, second: VersionRange) -> str:
    """The reason of ``first``'s bound that ``second``'s opposite bound excludes."""
    if first.lower is not None and second.upper is not None and VersionRange(first.lower, second.upper).empty:
        return first.lower.reason
    if first.upper is not None and second.lower is not None and VersionRange(second.lower, first.upper).empty:
        return first.upper.reason
    return first.source
