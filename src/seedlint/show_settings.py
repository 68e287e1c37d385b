"""``seedlint --show-settings [PATH]``: the settings a file is checked with, and why.

For each version the rules read (torch, Lightning, Python, the libraries with kept RNGs)
it prints the resolved range and, for each bound, what set it: a packaging file and line,
an API the file's program uses, or another package's bound; then every other package the
project declares, and the declarations that contradict each other.
"""

from __future__ import annotations

import os
from typing import List

from seedlint.config import VERSION_SETTINGS, Settings
from seedlint.versions import LIBRARY_PACKAGES, VersionRange, resolve

_PINNED_BY = {"torch": "--torch-version / torch-version", "lightning": "--lightning-version / lightning-version",
              "python": "--python-version / python-version"}


def show_settings(path: str, settings: Settings) -> str:
    """The report for ``path`` (a file: its program's versions; a directory: the project's)."""
    from seedlint.config import resolve_root

    absolute = os.path.abspath(path)
    if os.path.isfile(absolute):
        resolution, effective = _for_file(absolute, settings)
        subject = f"Settings for {path} (its program: the file and the project modules it imports)"
    else:
        resolution, effective = resolve_root(settings.project_root), settings
        subject = f"Settings for {path} (the project's declarations; give a file to include the APIs its program uses)"
    lines: List[str] = [subject, ""]
    lines.append(f"project root: {settings.project_root or '(none found)'}")
    lines.append(f"configuration: {settings.config_file or '(no [tool.seedlint] table)'}")
    lines.append(f"select: {', '.join(settings.select + settings.extend_select)}")
    lines.append(f"ignore: {', '.join(settings.ignore) or '(none)'}")
    from seedlint.versions.model import declared_linux

    linux = declared_linux(absolute if os.path.isdir(absolute) else os.path.dirname(absolute), settings.project_root)
    lines.append(f"platform: {'Linux only (' + linux + ')' if linux else 'any (an installation that is not Linux-only, or none)'}")
    lines.append("")
    lines.append("target versions:")
    for package, attribute in VERSION_SETTINGS:
        version = getattr(effective, attribute)
        pinned = package in settings.pinned_versions
        lines.extend(_describe(package, version, f"set by {_PINNED_BY[package]}" if pinned else None))
    for package in LIBRARY_PACKAGES:
        version = resolution.get(package)
        if version.declared:
            lines.extend(_describe(package, version, None))
    others = sorted(
        (name, value) for name, value in resolution.ranges.items()
        if name not in ("torch", "python", "lightning", "pytorch-lightning", "lightning-fabric", *LIBRARY_PACKAGES) and value.declared
    )
    lightning_packages = [name for name in ("lightning", "pytorch-lightning", "lightning-fabric") if resolution.get(name).declared]
    if lightning_packages:
        lines.append("")
        lines.append("Lightning distributions (a module is judged by the one it imports):")
        for name in lightning_packages:
            lines.extend(_describe(name, resolution.get(name), None))
    if others:
        lines.append("")
        lines.append("other declared packages:")
        lines.extend(f"  {name} {value.describe()}  ({value.source})" for name, value in others)
    if resolution.conflicts:
        lines.append("")
        lines.append("conflicts (left out of the ranges above):")
        lines.extend(f"  {conflict}" for conflict in resolution.conflicts)
    return "\n".join(lines) + "\n"


def _describe(package: str, version: VersionRange, pinned: "str | None") -> List[str]:
    lines = [f"  {package}: {version.describe()}" + (f"  ({pinned})" if pinned else "")]
    if pinned or not version.declared:
        return lines
    for label, bound in (("lower", version.lower), ("upper", version.upper)):
        if bound is not None:
            lines.append(f"    {label} bound {('>=' if bound.inclusive else '>') if label == 'lower' else ('<=' if bound.inclusive else '<')}{bound.version}: {bound.reason}")
    if version.lower is None and version.upper is None:
        lines.append(f"    no bound: {version.source}")
    return lines


def _for_file(path: str, settings: Settings):
    """The resolution for one file's program, as a run sees it."""
    from seedlint.analysis.index import ProjectIndex
    from seedlint.engine import Engine
    from seedlint.rules import Project

    engine = Engine(settings)
    engine._ensure_state()
    index = ProjectIndex(engine._lazy_loader({}, {}), settings.project_root)
    facts = index.load_file(path)
    if facts is None:
        return resolve({}), settings
    project = Project(index, [facts], settings)
    return project.versions_for(path), project.settings_for(path)
