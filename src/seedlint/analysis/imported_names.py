"""Which code of an imported module a program can run, judged from what it imports.

``from .train import CONFIG, pre_operation`` runs ``train.py``'s top-level code and gives the
program ``pre_operation`` (and what it calls in its own module); ``train.run``, which starts
an NCCL process group, is not reached that way. A plain ``import train`` (or ``from train
import *``) gives the whole module. Used to read the APIs a program uses (``knowledge.
watched_apis``) from its imports without crediting it with functions it cannot call.
"""

from __future__ import annotations

from typing import Iterable, Optional, Set

from seedlint.facts.model import MODULE_CODE, ModuleFacts, Name


def reachable_functions(module: ModuleFacts, members: Iterable[str]) -> Set[str]:
    """The qualified names of the module's functions that the imported ``members`` are or
    call (by plain name, within the module), and the methods of imported classes."""
    found: Set[str] = set()
    queue = list(members)
    while queue:
        member = queue.pop()
        names = [member] if member in module.functions else []
        names += [q for q in module.functions if q.startswith(member + ".")]
        for qualname in names:
            if qualname in found:
                continue
            found.add(qualname)
            for call in module.functions[qualname].calls:
                if isinstance(call.func, Name) and call.func.qualified is None:
                    root = call.func.dotted.split(".", 1)[0]
                    if root in module.functions and root not in found:
                        queue.append(root)
    return found


def enclosing_function(module: ModuleFacts, line: int) -> Optional[str]:
    """The innermost def or lambda (not top-level code) whose lines hold ``line``."""
    best = None
    for qualname, function in module.functions.items():
        if qualname == MODULE_CODE:
            continue
        span = function.span
        if span.line <= line <= span.end_line and (best is None or span.line >= module.functions[best].span.line):
            best = qualname
    return best


def runs_line(module: ModuleFacts, allowed: Optional[Set[str]], line: int) -> bool:
    """A use at ``line`` runs for a program given ``allowed`` functions (None: all): it is in
    top-level code, or in an allowed function or one nested in it."""
    if allowed is None:
        return True
    inner = enclosing_function(module, line)
    if inner is None:
        return True
    return any(inner == name or inner.startswith(name + ".") for name in allowed)
