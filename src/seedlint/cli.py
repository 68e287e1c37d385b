"""The ``seedlint`` command: argument parsing, output selection and exit codes.

Exit status: 0 nothing reported, 1 diagnostics remain (with --diff: a change would be
made), 2 usage error, unreadable or unparsable input, or an internal error.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from typing import List, Optional

from seedlint import __version__
from seedlint.cache import default_cache
from seedlint.config import ConfigError, load_settings, version_option
from seedlint.docs import rule_page
from seedlint.engine import Engine
from seedlint.fixes import apply_fixes
from seedlint.report import FORMATS, statistics, text
from seedlint.rules import BY_CODE, RULES
from seedlint.source import ChangedOnDisk, InputError, read_source, write_atomically


def _codes(value: str) -> List[str]:
    codes = [c.strip().upper() for c in value.split(",") if c.strip()]
    for code in codes:
        if not code.startswith("SDL"):
            raise argparse.ArgumentTypeError(f"{code!r} is not a seedlint rule code or prefix (SDL...)")
    return codes


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="seedlint",
        description="Find (and fix) PyTorch data-loading bugs that silently ruin training runs.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or directories to check (default: .)")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--fix", action="store_true", help="apply fixes, then report what remains")
    action.add_argument("--diff", action="store_true", help="print the diff --fix would apply; write nothing")
    action.add_argument("--explain", metavar="CODE", help="print a rule's documentation")
    action.add_argument("--list-rules", action="store_true", help="list every rule")
    parser.add_argument("--unsafe-fixes", action="store_true", help="also apply fixes marked unsafe")
    parser.add_argument("--format", choices=sorted(FORMATS), default="text", help="output format (default: text)")
    parser.add_argument("--select", type=_codes, help="rule codes or prefixes to enable, comma-separated")
    parser.add_argument("--extend-select", type=_codes, help="codes or prefixes to enable on top of the selection")
    parser.add_argument("--ignore", type=_codes, help="rule codes or prefixes to disable, comma-separated")
    parser.add_argument("--torch-version", help="target torch version (e.g. 1.8 or '>=2.0'), overrides the project's")
    parser.add_argument("--lightning-version", help="target Lightning version, overrides the project's")
    parser.add_argument("--config", metavar="PYPROJECT", help="read [tool.seedlint] from this file")
    parser.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, metavar="N",
                        help="processes that parse files in parallel (default: the number of cores)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the .seedlint_cache/ facts cache")
    parser.add_argument("--quiet", "-q", action="store_true", help="print diagnostics only, no summary")
    parser.add_argument("--statistics", action="store_true",
                        help="print the number of diagnostics per rule instead of the diagnostics (text or json)")
    parser.add_argument("--version", action="version", version=f"seedlint {__version__}")
    return parser


def _overrides(args: argparse.Namespace) -> dict:
    found = {}
    if args.select is not None:
        found["select"] = tuple(args.select)
    if args.extend_select is not None:
        found["extend_select"] = tuple(args.extend_select)
    if args.ignore is not None:
        found["ignore"] = tuple(args.ignore)
    if args.torch_version is not None:
        found["torch_version"] = version_option("--torch-version", args.torch_version)
    if args.lightning_version is not None:
        found["lightning_version"] = version_option("--lightning-version", args.lightning_version)
    if args.unsafe_fixes:
        found["unsafe_fixes"] = True
    return found


def _explain(code: str) -> int:
    rule = BY_CODE.get(code.upper())
    if rule is None:
        print(f"seedlint: error: unknown rule {code!r}; see `seedlint --list-rules`", file=sys.stderr)
        return 2
    sys.stdout.write(rule_page(rule, note=False))
    return 0


def _list_rules() -> int:
    for rule in RULES:
        fix = {"safe": "fix", "unsafe": "unsafe fix", None: ""}[rule.fix_safety]
        print(f"{rule.code}  {rule.name:<42} {fix}")
    return 0


def _use_color(stream) -> bool:
    """Colour on a terminal only; NO_COLOR (https://no-color.org) always wins, FORCE_COLOR forces."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def _fixed_text(settings):
    """For SARIF: (path of the fixed file, its text, its text after this diagnostic's fix
    alone), or None."""

    def fixed_text(diagnostic):
        fix = diagnostic.fix
        if fix is None or not (fix.safe or settings.unsafe_fixes):
            return None
        absolute = os.path.abspath(fix.path)
        shown = diagnostic.path if absolute == os.path.abspath(diagnostic.path) else os.path.relpath(absolute)
        source = read_source(absolute)
        if isinstance(source, InputError):
            return None
        try:
            return shown, source.text, apply_fixes(source.text, [fix])
        except Exception:  # a fix that cannot be expressed is left out of the report, not fatal
            return None

    return fixed_text


def _diff(result) -> str:
    chunks = []
    for shown, (original, new) in sorted(result.new_text.items()):
        chunks.extend(
            difflib.unified_diff(
                original.text.splitlines(keepends=True),
                new.splitlines(keepends=True),
                fromfile=f"a/{shown}",
                tofile=f"b/{shown}",
            )
        )
    return "".join(chunks)


def _print_errors(errors: List[InputError]) -> None:
    for error in errors:
        print(f"seedlint: error: {error}", file=sys.stderr)


def main(argv: Optional[List[str]] = None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("seedlint: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # exit 2, never 1 ("findings remain"), on a bug in seedlint
        import traceback

        traceback.print_exc()
        print(f"seedlint: error: internal error: {error!r}", file=sys.stderr)
        return 2


def _main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.explain:
        return _explain(args.explain)
    if args.list_rules:
        return _list_rules()
    paths = args.paths or ["."]
    for path in paths:
        if not os.path.lexists(path):
            print(f"seedlint: error: {path}: no such file or directory", file=sys.stderr)
            return 2
    if args.statistics and args.format not in ("text", "json"):
        print(f"seedlint: error: --statistics works with --format text or json, not {args.format}", file=sys.stderr)
        return 2
    try:
        settings = load_settings(paths, _overrides(args), config_file=args.config)
    except ConfigError as error:
        print(f"seedlint: error: {error}", file=sys.stderr)
        return 2
    cache = None if args.no_cache else default_cache(settings.project_root)
    engine = Engine(settings, jobs=args.jobs, cache=cache)
    write_errors: List[InputError] = []
    if args.fix or args.diff:
        result = engine.fix(paths)
        if args.diff:
            sys.stdout.write(_diff(result))
            _print_errors(result.errors)
            if result.errors:
                return 2
            return 1 if result.new_text else 0
        for shown, (original, new) in sorted(result.new_text.items()):
            try:
                write_atomically(original, new)
            except ChangedOnDisk:
                write_errors.append(InputError(shown, "changed on disk while seedlint was fixing it; left as it is"))
                result.fixed.pop(shown, None)
            except OSError as error:
                write_errors.append(InputError(shown, f"cannot write: {error.strerror or error}"))
                result.fixed.pop(shown, None)
        if write_errors:  # what stays on disk is reported as it is
            unwritten = {e.path for e in write_errors}
            on_disk = Engine(settings, jobs=args.jobs, cache=cache).check(paths)
            result.diagnostics = sorted(
                [d for d in result.diagnostics if d.path not in unwritten]
                + [d for d in on_disk.diagnostics if d.path in unwritten], key=lambda d: d.sort_key())
    else:
        result = engine.check(paths)
    errors = result.errors + write_errors
    _print_errors(errors)
    remaining = result.diagnostics
    def fixed_by_fix(d) -> bool:
        return d.fix is not None and (d.fix.safe or settings.unsafe_fixes)

    fixable = sum(1 for d in remaining if fixed_by_fix(d))
    color = args.format == "text" and _use_color(sys.stdout)
    render = statistics.FORMATS[args.format] if args.statistics else FORMATS[args.format]
    sys.stdout.write(render(remaining, color=color, rules=[r for r in RULES if settings.is_selected(r.code)],
                            is_fixable=fixed_by_fix if args.statistics else (lambda d: d.fix is not None),
                            fixed_text=_fixed_text(settings)))
    if args.format == "text" and not args.quiet:
        sys.stdout.write(text.summary(remaining, fixable, sum(result.fixed.values()), color))
    if errors:
        return 2
    return 1 if remaining else 0
