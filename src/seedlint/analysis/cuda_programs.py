"""Whether a program needs CUDA on every run: a call that raises without a CUDA build of
torch (``knowledge.platforms.CUDA_CALLS``, or ``torch.device("cuda")``) under no ``if``, in its module's top-level code,
in the function that builds or calls the loader, or in the module's ``main``-like functions
(not in a helper, which may be called only where CUDA is there). Such a program does not run on macOS, where torch has no
CUDA build, so a start method that is the default only there does not apply to it."""

from __future__ import annotations

from typing import Iterable, Optional, Tuple

from seedlint.facts.model import MODULE_CODE, Const, ModuleFacts, Name, Span
from seedlint.knowledge.platforms import CUDA_CALLS


PROGRAM_FUNCTIONS = frozenset({MODULE_CODE, "main", "main_worker", "train", "run", "worker"})


def cuda_call(module: ModuleFacts, functions: Iterable[str] = ()) -> Optional[Tuple[str, Span]]:
    """(```model.cuda()```, where it is) for the first such call in the module's program code
    (and in ``functions``, by qualified name), else None."""
    wanted = PROGRAM_FUNCTIONS | set(functions)
    found = []
    for qualname, function in module.functions.items():
        if qualname not in wanted:
            continue
        for call in function.calls:
            if call.guards or not isinstance(call.func, Name):
                continue
            dotted = call.func.qualified or call.func.dotted
            if dotted in CUDA_CALLS or call.func.dotted.rsplit(".", 1)[-1] == "cuda" and "." in call.func.dotted:
                found.append((call.span.line, f"`{call.func.dotted}()`", call.span))
            elif dotted == "torch.device" and call.args and isinstance(call.args[0], Const) and str(call.args[0].value).startswith("cuda"):
                found.append((call.span.line, f"`{call.func.dotted}({call.args[0].value!r})`", call.span))
    if not found:
        return None
    _, spelled, span = min(found, key=lambda item: item[0])
    return spelled, span
