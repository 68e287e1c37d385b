"""The flake8 plugin: a thin adapter over the engine.

flake8 hands over one file at a time; each flake8 process analyses the project the file
belongs to once (through the run cache, under its lock, so concurrent workers share one
analysis) and reports the findings anchored in that file, as ``seedlint .`` does. flake8
itself applies --select/--ignore, per-file-ignores and ``# noqa``.

Settings come from ``[tool.seedlint]`` in the project's pyproject.toml, overridden by the
``seedlint-*`` options in flake8's own configuration (``setup.cfg``, ``tox.ini``, ``.flake8``)
or command line.
"""

from __future__ import annotations

import ast
import gc
import os
import sys
from typing import Any, Dict, Iterator, List, Optional, Tuple

from seedlint import __version__
from seedlint.cache import default_cache
from seedlint.config import ConfigError, class_names, find_config, load_settings, version_option
from seedlint.engine import Engine, FactsStore
from seedlint.versions import find_project_root

_ENGINES: Dict[Tuple[Optional[str], Optional[str]], Engine] = {}

VERSION_OPTIONS = (
    ("--seedlint-torch-version", "torch_version", "target torch version (e.g. 1.8 or '>=1.8,<2'); overrides the project's"),
    ("--seedlint-lightning-version", "lightning_version", "target Lightning version; overrides the project's"),
)
CLASS_OPTIONS = (
    ("--seedlint-extra-dataset-classes", "extra_dataset_classes", "qualified names of in-house dataset base classes"),
    ("--seedlint-extra-loader-classes", "extra_loader_classes", "qualified names of in-house DataLoader wrappers"),
    ("--seedlint-extra-sampler-classes", "extra_sampler_classes", "qualified names of in-house sampler classes"),
)


_PROJECT_OF: Dict[str, Tuple[Optional[str], Optional[str]]] = {}
_STORE: Optional[FactsStore] = None


def _engine_for(filename: str) -> Engine:
    """One engine per project (config file and project root), sharing one facts store, so
    a module imported by many checked files is parsed once per flake8 process."""
    global _STORE
    directory = os.path.dirname(os.path.abspath(filename))
    if directory not in _PROJECT_OF:
        _PROJECT_OF[directory] = (find_config(directory), find_project_root(directory))
    key = _PROJECT_OF[directory]
    engine = _ENGINES.get(key)
    if engine is None:
        overrides = {"select": ("SDL",), "ignore": (), "extend_select": ()}
        overrides.update(SeedlintChecker.overrides)
        settings = load_settings([filename], overrides)
        engine = _ENGINES[key] = Engine(settings, honor_noqa=False)
        if _STORE is None:
            _STORE = FactsStore(default_cache(settings.project_root), compact=True)
        engine.store = _STORE
    return engine


class SeedlintChecker:
    name = "seedlint"
    version = __version__
    overrides: Dict[str, Any] = {}
    """Settings given through flake8's options, set by ``parse_options``."""
    selected = True
    """False when flake8's --select leaves out every SDL code: flake8 still calls every
    installed plugin, so the plugin must notice on its own to cost nothing."""

    def __init__(self, tree: Any, filename: str, lines: List[str]) -> None:
        self.tree = tree
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, option_manager: Any) -> None:
        for flag, _, help_text in VERSION_OPTIONS:
            option_manager.add_option(flag, parse_from_config=True, metavar="VERSION", help=help_text)
        for flag, _, help_text in CLASS_OPTIONS:
            option_manager.add_option(
                flag, parse_from_config=True, comma_separated_list=True, metavar="NAMES", help=help_text
            )

    @classmethod
    def parse_options(cls, options: Any) -> None:
        overrides: Dict[str, Any] = {}
        try:
            for flag, attribute, _ in VERSION_OPTIONS:
                value = getattr(options, attribute_of(flag), None)
                if value:
                    overrides[attribute] = version_option(flag[2:], value)
            for flag, attribute, _ in CLASS_OPTIONS:
                value = getattr(options, attribute_of(flag), None)
                if value:
                    overrides[attribute] = class_names(flag[2:], list(value))
        except ConfigError as error:
            # A usage error: exit status 2, as the CLI gives (flake8 exits 1 on ExecutionError).
            sys.stderr.write(f"flake8: seedlint: {error}\n")
            raise SystemExit(2) from None
        cls.overrides = overrides
        cls.selected = _selects_seedlint(options)
        _ENGINES.clear()
        if cls.selected:
            _settle_start_up_objects()

    def run(self) -> Iterator[Tuple[int, int, str, type]]:
        if not self.selected:
            return
        source = "".join(self.lines)
        try:
            engine = _engine_for(self.filename)
        except ConfigError as error:
            yield 1, 0, f"SDL000 seedlint configuration error: {error}", type(self)
            return
        tree = self.tree if isinstance(self.tree, ast.Module) else None
        result = engine.check_file_in_project(self.filename, source, tree)
        for diagnostic in result.diagnostics:
            yield diagnostic.line, diagnostic.span.col, f"{diagnostic.code} {diagnostic.message}", type(self)


_SETTLED = False


def _settle_start_up_objects() -> None:
    """Import the parser in flake8's main process, before it starts its workers, then move
    everything alive at start-up out of the cyclic garbage collector's way (``gc.freeze``).

    flake8 runs full collections over and over while it checks files, and each one walks
    every live object: libcst's modules alone add some 16,000 long-lived objects to every
    walk. On a 2,300-module tree that cost each flake8 worker about 1.5 s, more than half
    as much as the plugin's own analysis. Frozen objects are only those that live for the
    whole run anyway (flake8's set-up, imported modules); everything created later is
    collected as usual."""
    global _SETTLED
    if _SETTLED:
        return
    _SETTLED = True
    import libcst  # noqa: F401

    import seedlint.facts.collector  # noqa: F401

    gc.collect()
    gc.freeze()


def attribute_of(flag: str) -> str:
    """argparse's destination for a flag: ``--seedlint-torch-version`` -> ``seedlint_torch_version``."""
    return flag.lstrip("-").replace("-", "_")


def _selects_seedlint(options: Any) -> bool:
    """Whether flake8's --select / --extend-select can enable an SDL code."""
    select = getattr(options, "select", None)
    if not select:
        return True
    codes = [*select, *(getattr(options, "extend_select", None) or [])]
    return any(code.startswith("SDL") or "SDL".startswith(code) for code in codes if code)
