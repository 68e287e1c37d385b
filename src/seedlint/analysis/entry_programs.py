"""The programs that load a module: of the project files that import it, directly or not
(``focus.importers``), those that no other of them imports. Each is a script run as a
program, a notebook or a test; a module whose every such program needs Linux runs only
there (dinov2's ``data/loaders.py``: every script that loads it starts an NCCL group)."""

from __future__ import annotations

import os
from typing import Callable, Dict, List, Optional, Set

from seedlint.analysis.files import ProjectFiles
from seedlint.analysis.focus import importers
from seedlint.facts.model import ModuleFacts

MAX_IMPORTERS = 200
"""Importing files read to find the entry points; with more, none is claimed."""


def entry_programs(
    path: str,
    files: ProjectFiles,
    load: Callable[[str], Optional[ModuleFacts]],
    imported: Callable[[ModuleFacts, str], Optional[ModuleFacts]],
) -> Optional[List[str]]:
    """The paths of the entry points whose programs import ``path``; None when they cannot
    all be found (too many importers, or one that does not parse)."""
    path = os.path.abspath(path)
    users = sorted(os.path.abspath(user) for user in importers({path}, files, {}))
    if len(users) > MAX_IMPORTERS:
        return None
    edges: Dict[str, Set[str]] = {}
    for user in users:
        module = load(user)
        if module is None:
            return None
        edges[user] = set()
        for target in (*module.imports.values(), *module.star_imports):
            found = imported(module, target)
            if found is not None and os.path.abspath(found.path) != user:
                edges[user].add(os.path.abspath(found.path))
    # The spelling search over-approximates (``dataset.base_dataset`` in two folders): keep
    # the users whose resolved imports reach the module.
    reaching = {path}
    changed = True
    while changed:
        changed = False
        for user, targets in edges.items():
            if user not in reaching and targets & reaching:
                reaching.add(user)
                changed = True
    users = [user for user in users if user in reaching]
    imported_by_users = set().union(*(edges[user] for user in users)) if users else set()
    return [user for user in users if user not in imported_by_users]
