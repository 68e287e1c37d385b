"""Fixture cases under fixtures/<CODE>/: a single file ``case.py`` or a directory ``case/``.

Beside a file (or inside the directory) ``x.fixed.py`` holds the exact ``--fix`` output of
``x.py``; ``case.expected`` (or ``case/expected``) lists ``file:line:col CODE``, one per
diagnostic, before fixing. A case directory may hold a pyproject.toml or requirements.txt
(declared versions) and a ``seedlint.args`` file (extra settings as ``key=value`` lines).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Dict, List

from seedlint.config import load_settings, version_option
from seedlint.engine import Engine

ROOT = Path(__file__).resolve().parent.parent / "fixtures"
REGENERATE = bool(os.environ.get("SEEDLINT_REGENERATE"))


@dataclass
class Case:
    code: str
    name: str
    source: Path

    @property
    def id(self) -> str:
        return f"{self.code}/{self.name}"

    @property
    def is_dir(self) -> bool:
        return self.source.is_dir()

    @property
    def expected_file(self) -> Path:
        return self.source / "expected" if self.is_dir else self.source.with_suffix(".expected")

    def fixed_file(self, relative: str) -> Path:
        base = self.source if self.is_dir else self.source.parent
        if not self.is_dir:
            relative = self.source.name
        return base / relative.replace(".py", ".fixed.py")

    def install(self, into: Path) -> Path:
        """Copy the case's input files (not expectations) into a fresh project dir."""
        project = into / "project"
        if self.is_dir:
            shutil.copytree(self.source, project, ignore=shutil.ignore_patterns("*.fixed.py", "expected", "seedlint.args"))
        else:
            project.mkdir()
            shutil.copy(self.source, project / self.source.name)
        return project

    def settings_for(self, project: Path):
        settings = load_settings([str(project)])
        args = self.source / "seedlint.args" if self.is_dir else None
        if args is not None and args.exists():
            for line in args.read_text().splitlines():
                key, _, value = line.partition("=")
                key = key.strip()
                if key in ("torch_version", "lightning_version"):
                    settings = replace(settings, **{key: version_option(key, value.strip())})
                elif key == "unsafe_fixes":
                    settings = replace(settings, unsafe_fixes=value.strip() == "true")
        return settings


def all_cases() -> List[Case]:
    cases = []
    for code_dir in sorted(p for p in ROOT.iterdir() if p.is_dir()):
        for entry in sorted(code_dir.iterdir()):
            if entry.is_dir():
                cases.append(Case(code_dir.name, entry.name, entry))
            elif entry.suffix == ".py" and not entry.name.endswith(".fixed.py"):
                cases.append(Case(code_dir.name, entry.stem, entry))
    return cases


def diagnostics_lines(result, project: Path) -> List[str]:
    lines = []
    for d in result.diagnostics:
        relative = os.path.relpath(os.path.abspath(d.path), project).replace(os.sep, "/")
        severity = " warning" if d.severity == "warning" else ""
        cell = f"cell {d.cell}:" if d.cell is not None else ""
        lines.append(f"{relative}:{cell}{d.line}:{d.column} {d.code}{severity}")
    return lines


def run_case(case: Case, tmp: Path):
    project = case.install(tmp)
    settings = case.settings_for(project)
    engine = Engine(settings)
    checked = engine.check([str(project)])
    fixed = Engine(settings).fix([str(project)])
    changed: Dict[str, str] = {}
    for shown, (_, text) in fixed.new_text.items():
        changed[os.path.relpath(os.path.abspath(shown), project).replace(os.sep, "/")] = text
    return project, settings, checked, fixed, changed
