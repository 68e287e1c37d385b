"""``path:line:col: CODE message`` lines (``CODE warning: message`` for warnings) and a
summary, coloured only on a terminal."""

from __future__ import annotations

from typing import Dict, List

from seedlint.diagnostics import Diagnostic

BOLD, RED, YELLOW, CYAN, GREEN, RESET = "\033[1m", "\033[31m", "\033[33m", "\033[36m", "\033[32m", "\033[0m"


def render(diagnostics: List[Diagnostic], fixable: int = 0, color: bool = False, **_) -> str:
    lines = []
    for d in diagnostics:
        message = f"warning: {d.message}" if d.severity == "warning" else d.message
        if color:
            code_color = YELLOW if d.severity == "warning" else RED
            cell = f"cell {d.cell}{CYAN}:{RESET}" if d.cell is not None else ""
            lines.append(f"{BOLD}{d.path}{RESET}{CYAN}:{RESET}{cell}{d.line}{CYAN}:{RESET}{d.column}{CYAN}:{RESET} {BOLD}{code_color}{d.code}{RESET} {message}")
        else:
            lines.append(f"{d.place}: {d.code} {message}")
    return "\n".join(lines) + ("\n" if lines else "")


def summary(
    diagnostics: List[Diagnostic], fixable: int, fixed: int = 0, color: bool = False,
    files_checked: int = -1, unchecked: int = 0, unsafe: int = 0,
) -> str:
    """The closing lines. "All checks passed!" only when every input was checked."""
    parts = []
    if fixed:
        parts.append(f"Fixed {fixed} {'problem' if fixed == 1 else 'problems'}.")
    if diagnostics:
        count = len(diagnostics)
        line = f"Found {count} {'problem' if count == 1 else 'problems'}"
        if fixed:
            line += " remaining"
        line += "."
        if fixable:
            line += f" {fixable} fixable with `seedlint --fix`."
        parts.append(line)
    if unsafe:
        parts.append(f"{unsafe} more {'fix is' if unsafe == 1 else 'fixes are'} available with `--unsafe-fixes`.")
    if unchecked:
        checked = f"Checked {files_checked} {'file' if files_checked == 1 else 'files'}; " if files_checked >= 0 else ""
        parts.append(f"{checked}{unchecked} could not be checked (see the errors above).")
    elif not diagnostics and not fixed:
        if files_checked == 0:
            parts.append("No Python files were checked.")
        else:
            parts.append(f"{GREEN}All checks passed!{RESET}" if color else "All checks passed!")
    return "\n".join(parts) + "\n"


def applied_fixes(fixed_codes: Dict[str, Dict[str, int]], names: Dict[str, str]) -> str:
    """``--show-fixes``: what was fixed, per file and rule."""
    total = sum(sum(codes.values()) for codes in fixed_codes.values())
    lines = [f"Fixed {total} {'problem' if total == 1 else 'problems'}:"]
    for path in sorted(fixed_codes):
        lines.append(f"- {path}:")
        for code, count in sorted(fixed_codes[path].items()):
            lines.append(f"    {count} × {code} ({names.get(code, '')})")
    return "\n".join(lines) + "\n"
