"""The ``seedlint`` command: argument parsing, output selection and exit codes.

Exit status: 0 nothing reported, 1 diagnostics remain (with --diff: a change would be
made), 2 usage error, unreadable or unparsable input, or an internal error. Everything
else (checking, fixing, writing) is done by ``seedlint.api``.
"""

from __future__ import annotations

import argparse
import difflib
import gc
import os
import sys
import threading
from typing import List, Optional, TextIO

from seedlint import __version__

# The engine, the rules and the reporters are imported once the command line is parsed, so
# `seedlint --version` and `--help` load nothing but argparse.
FORMAT_NAMES = ("concise", "full", "github", "json", "sarif", "text")
TEXT_FORMATS = ("text", "concise", "full")
"""``text`` is ``full`` on a terminal and ``concise`` otherwise, as in ruff."""

PROGRESS_AFTER = 1.0
"""Seconds a run on a terminal may take before a progress line appears on stderr
(``SEEDLINT_PROGRESS_AFTER`` overrides it)."""


def _codes(value: str) -> List[str]:
    from seedlint.config import selector

    codes = [selector(c) for c in value.split(",") if c.strip()]
    for code in codes:
        if not code.startswith("SDL"):
            raise argparse.ArgumentTypeError(f"{code!r} is not a seedlint rule code or prefix (SDL..., or ALL)")
    return codes


def _per_file_ignores(value: str):
    from seedlint.config import ConfigError, per_file_ignores_option

    try:
        return per_file_ignores_option(value)
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error).replace("--per-file-ignores: ", "")) from None


def _patterns(value: str) -> List[str]:
    return [p.strip() for p in value.split(",") if p.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="seedlint",
        description="Find (and fix) PyTorch data-loading bugs that silently ruin training runs.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or directories to check (default: .); - reads stdin")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--fix", action="store_true", help="apply fixes, then report what remains")
    action.add_argument("--diff", action="store_true", help="print the diff --fix would apply; write nothing")
    action.add_argument("--explain", metavar="CODE", help="print a rule's documentation (by code or by name)")
    action.add_argument("--list-rules", action="store_true", help="list every rule")
    action.add_argument("--show-settings", action="store_true",
                        help="print the settings and target versions PATH is checked with, and what set each bound")
    action.add_argument("--show-files", action="store_true", help="print the files that would be checked, then exit")
    action.add_argument("--add-noqa", action="store_true",
                        help="add a `# noqa: SDLxxx` to each line with a finding (to adopt seedlint on existing code)")
    parser.add_argument("--unsafe-fixes", action="store_true", help="also apply fixes marked unsafe")
    parser.add_argument("--show-fixes", action="store_true", help="after --fix, list the fixes applied per file")
    parser.add_argument("--output-format", "--format", dest="format", choices=FORMAT_NAMES, default="text",
                        help="output format (default: text, which is `full` on a terminal and `concise` otherwise); --format is the older name")
    parser.add_argument("--output-file", "-o", metavar="FILE", help="write the report to FILE instead of stdout")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when problems are found")
    parser.add_argument("--exit-non-zero-on-fix", action="store_true",
                        help="with --fix, exit 1 when files were changed, even if nothing remains")
    parser.add_argument("--select", type=_codes, help="rule codes or prefixes to enable, comma-separated")
    parser.add_argument("--extend-select", type=_codes, help="codes or prefixes to enable on top of the selection")
    parser.add_argument("--ignore", type=_codes, help="rule codes or prefixes to disable, comma-separated")
    parser.add_argument("--extend-ignore", type=_codes, help="codes or prefixes to disable on top of the ignored ones")
    parser.add_argument("--per-file-ignores", type=_per_file_ignores, metavar="GLOB:CODES",
                        help="codes to disable in matching files, e.g. \"tests/*:SDL001,SDL003 scripts/*:SDL1\" (replaces the configured ones)")
    parser.add_argument("--exclude", type=_patterns, metavar="PATTERNS", help="file patterns to skip (replaces the defaults)")
    parser.add_argument("--extend-exclude", type=_patterns, metavar="PATTERNS", help="file patterns to skip on top of the defaults")
    parser.add_argument("--stdin-filename", metavar="PATH", help="read stdin and check it as this file (alone, or with PATH -)")
    parser.add_argument("--torch-version", help="target torch version (e.g. 1.8 or '>=2.0'), overrides the project's")
    parser.add_argument("--lightning-version", help="target Lightning version, overrides the project's")
    parser.add_argument("--python-version", help="target Python version, overrides the project's requires-python")
    parser.add_argument("--config", metavar="PYPROJECT", help="read [tool.seedlint] from this file")
    parser.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, metavar="N",
                        help="processes that parse files in parallel (default: the number of cores)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the .seedlint_cache/ facts cache")
    parser.add_argument("--cache-dir", metavar="DIR",
                        help="where the facts cache lives (default: .seedlint_cache/ at the project root; also SEEDLINT_CACHE_DIR)")
    parser.add_argument("--quiet", "-q", action="store_true", help="print diagnostics only, no summary")
    parser.add_argument("--statistics", action="store_true",
                        help="print the number of diagnostics per rule instead of the diagnostics (text or json)")
    parser.add_argument("--version", action="version", version=f"seedlint {__version__}")
    return parser


def _overrides(args: argparse.Namespace) -> dict:
    from seedlint.config import version_option

    found = {}
    for option in ("select", "extend_select", "ignore", "extend_ignore", "extend_exclude", "per_file_ignores"):
        value = getattr(args, option)
        if value is not None:
            found[option] = tuple(value)
    if args.exclude is not None:
        found["exclude"] = tuple(args.exclude)
    for option in ("torch_version", "lightning_version", "python_version"):
        value = getattr(args, option)
        if value is not None:
            found[option] = version_option("--" + option.replace("_", "-"), value)
    if args.unsafe_fixes:
        found["unsafe_fixes"] = True
    return found


def _explain(code: str) -> int:
    from seedlint.docs import rule_page
    from seedlint.rules import BY_CODE

    rule = BY_CODE.get(code.upper()) or next((r for r in BY_CODE.values() if r.name == code.lower()), None)
    if rule is None:
        print(f"seedlint: error: unknown rule {code!r}; see `seedlint --list-rules`", file=sys.stderr)
        return 2
    sys.stdout.write(rule_page(rule, note=False))
    return 0


def _list_rules() -> int:
    from seedlint.rules import RULES

    for rule in RULES:
        fix = {"safe": "fix", "unsafe": "unsafe fix", None: ""}[rule.fix_safety]
        print(f"{rule.code}  {rule.name:<42} {rule.severity:<8} {fix}".rstrip())
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


def _diff(outcome) -> str:
    chunks = []
    for shown, (original, new) in sorted(outcome.new_text.items()):
        chunks.extend(
            difflib.unified_diff(
                original.text.splitlines(keepends=True), new.splitlines(keepends=True),
                fromfile=f"a/{shown}", tofile=f"b/{shown}",
            )
        )
    return "".join(chunks)


def _print_errors(errors) -> None:
    for error in errors:
        print(f"seedlint: error: {error}", file=sys.stderr)


class _Progress:
    """One line on stderr, redrawn in place, when a run on a terminal takes longer than
    ``PROGRESS_AFTER`` seconds: where the run is (files read, files parsed, the rule at
    work). Nothing when stderr is piped."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.state = "starting"
        self.shown = False
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._draw, daemon=True) if enabled else None

    def __call__(self, state: str) -> None:
        self.state = state
        if self.shown:
            self._write()

    def __enter__(self) -> "_Progress":
        if self._thread is not None:
            self._thread.start()
        return self

    def _draw(self) -> None:
        if self._stop.wait(float(os.environ.get("SEEDLINT_PROGRESS_AFTER", PROGRESS_AFTER))):
            return
        self.shown = True
        self._write()

    def _write(self, text: Optional[str] = None) -> None:
        with self._lock:
            sys.stderr.write("\r\033[K" + (f"seedlint: {self.state}..." if text is None else text))
            sys.stderr.flush()

    def __exit__(self, *exc) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
        if self.shown:
            self._write("")


def main(argv: Optional[List[str]] = None) -> int:
    # The cyclic garbage collector is off for the run: it would walk every cached fact and
    # syntax node again and again (a third of a warm run); parsing collects its own cycles.
    # Run as the command (``argv`` None) it stays off to the exit: switched back on, its first
    # collection walks every object the run allocated, seconds on a large project, for nothing.
    collecting = gc.isenabled() and argv is not None
    gc.disable()
    try:
        try:
            return _main(argv)
        finally:
            if collecting:
                gc.enable()
            if os.environ.get("SEEDLINT_TIMINGS"):
                from seedlint import timing

                timing.write()
    except KeyboardInterrupt:
        print("seedlint: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (``seedlint --list-rules | head``): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except Exception as error:  # exit 2, never 1 ("findings remain"), on a bug in seedlint
        import traceback

        traceback.print_exc()
        print(f"seedlint: error: internal error: {error!r}", file=sys.stderr)
        return 2


def _usage_error(message: str) -> int:
    print(f"seedlint: error: {message}", file=sys.stderr)
    return 2


def _main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from seedlint import api
    from seedlint.cache import default_cache
    from seedlint.config import ConfigError, load_settings, nullified_selections, unknown_codes
    from seedlint.rule_codes import RULE_CODES

    if args.explain:
        return _explain(args.explain)
    if args.list_rules:
        return _list_rules()
    # As in ruff: ``-`` reads stdin (shown as ``-``), and so does ``--stdin-filename F`` alone
    # (checked as ``F``: its project, configuration and versions).
    paths = args.paths or (["-"] if args.stdin_filename else ["."])
    stdin = None
    if "-" in paths:
        if paths != ["-"]:
            return _usage_error("- (stdin) cannot be combined with other paths")
        filename = args.stdin_filename or "-"
        stdin = (filename, sys.stdin.read())
        paths = [filename]
    else:
        for path in paths:
            if not os.path.lexists(path):
                return _usage_error(f"{path}: no such file or directory")
    if args.add_noqa and stdin is not None:
        return _usage_error("--add-noqa writes files; it cannot read stdin")
    if args.statistics and args.format not in (*TEXT_FORMATS, "json"):
        return _usage_error(f"--statistics works with --format text or json, not {args.format}")
    if args.diff and args.format not in TEXT_FORMATS:
        return _usage_error(f"--diff prints a unified diff; it cannot be combined with --format {args.format}")
    try:
        settings = load_settings(paths, _overrides(args), config_file=args.config)
    except ConfigError as error:
        return _usage_error(str(error))
    if args.show_settings:
        if len(paths) != 1 or stdin is not None:
            return _usage_error("--show-settings takes one file or directory")
        from seedlint.show_settings import show_settings

        sys.stdout.write(show_settings(paths[0], settings))
        return 0
    for conflict in settings.version_conflicts:
        print(f"seedlint: warning: version declarations: {conflict}", file=sys.stderr)
    unknown = unknown_codes(settings, RULE_CODES)
    if unknown:  # configuration files are checked as they are read: these come from the command line
        where, code = unknown[0]
        return _usage_error(f"--{where}: {code!r} names no seedlint rule (see `seedlint --list-rules`)")
    nullified = nullified_selections(settings, RULE_CODES)
    for code in nullified:
        print(f"seedlint: warning: `{code}` is selected but also ignored, and ignore wins: it is not checked", file=sys.stderr)
    if not nullified and not any(settings.is_selected(code) for code in RULE_CODES):
        print("seedlint: warning: no rule is selected (the ignores switch every rule off)", file=sys.stderr)
    if args.show_files:
        from seedlint.discovery import discover

        for target in discover(paths, settings):
            print(target.shown)
        return 0
    cache_dir = args.cache_dir or os.environ.get("SEEDLINT_CACHE_DIR")
    cache = None if args.no_cache else default_cache(settings.project_root, cache_dir)
    with _Progress(enabled=sys.stderr.isatty()) as progress:
        if args.fix or args.diff:
            outcome = api.fix(paths, settings, jobs=args.jobs, cache=cache, stdin=stdin, progress=progress)
        else:
            outcome = api.check(paths, settings, jobs=args.jobs, cache=cache, stdin=stdin, progress=progress)
    if args.add_noqa:
        return _add_noqa(outcome)
    if args.diff:
        sys.stdout.write(_diff(outcome))
        _print_errors(outcome.errors)
        would_fix = sum(outcome.fixed.values())
        if would_fix and not args.quiet:  # as ruff: the count on stderr, the diff alone on stdout
            print(f"Would fix {would_fix} {'problem' if would_fix == 1 else 'problems'}.", file=sys.stderr)
        return 2 if outcome.errors else (1 if outcome.new_text else 0)
    if args.fix and stdin is not None:
        return _fixed_stdin(outcome, stdin, args)
    if args.fix:
        api.write(outcome, paths, settings, jobs=args.jobs, cache=cache)
    _print_errors(outcome.errors)
    if outcome.files_checked == 0 and not outcome.errors:
        print("seedlint: warning: no Python files found under the given paths", file=sys.stderr)
    output: TextIO = open(args.output_file, "w", encoding="utf-8") if args.output_file else sys.stdout
    try:
        _report(outcome, settings, args, output)
    finally:
        if output is not sys.stdout:
            output.close()
    if outcome.errors:
        return 2
    if args.fix and args.exit_non_zero_on_fix and outcome.fixed and sum(outcome.fixed.values()):
        return 1
    return 0 if args.exit_zero or not outcome.diagnostics else 1


def _add_noqa(outcome) -> int:
    """``--add-noqa``: write the directives into each file with findings, atomically."""
    from seedlint.noqa_writer import with_noqa
    from seedlint.source import InputError, read_source, write_atomically

    by_file: dict = {}
    for d in outcome.diagnostics:
        by_file.setdefault(d.path, {}).setdefault(d.line, set()).add(d.code)
    added = 0
    failed = list(outcome.errors)
    for path, codes_by_line in sorted(by_file.items()):
        if path.endswith(".ipynb"):
            print(f"seedlint: warning: {path}: --add-noqa does not edit notebooks; add the noqa in the cell by hand", file=sys.stderr)
            continue
        source = read_source(path)
        if isinstance(source, InputError):
            failed.append(source)
            continue
        text, count, skipped = with_noqa(source.text, codes_by_line)
        for line in skipped:
            print(f"seedlint: warning: {path}:{line}: cannot take a comment (it ends inside a string or a `\\` continuation); "
                  "add the noqa on the statement's last line by hand", file=sys.stderr)
        if not count:
            continue
        try:
            write_atomically(source, text)
        except OSError as error:
            failed.append(InputError(path, f"cannot write: {error.strerror or error}"))
            continue
        added += count
    _print_errors(failed)
    print(f"Added {added} noqa {'directive' if added == 1 else 'directives'}.", file=sys.stderr)
    return 2 if failed else 0


def _selected_rules(settings) -> list:
    from seedlint.rules import RULES

    return [r for r in RULES if settings.is_selected(r.code)]


def _fixed_stdin(outcome, stdin, args) -> int:
    """``seedlint --fix - --stdin-filename F``: the fixed text on stdout, what remains on stderr."""
    filename, original = stdin
    new = next(iter(outcome.new_text.values()))[1] if outcome.new_text else original
    sys.stdout.write(new)
    _print_errors(outcome.errors)
    for d in outcome.diagnostics:
        print(f"{d.place}: {d.code} {d.message}", file=sys.stderr)
    if outcome.errors:
        return 2
    if args.exit_non_zero_on_fix and new != original:
        return 1
    return 0 if args.exit_zero or not outcome.diagnostics else 1


def _report(outcome, settings, args, output: TextIO) -> None:
    from seedlint import api
    from seedlint.report import FORMATS, statistics, text

    remaining = outcome.diagnostics

    def applied_by_fix(d) -> bool:
        return d.fix is not None and (d.fix.safe or settings.unsafe_fixes)

    fixable = sum(1 for d in remaining if applied_by_fix(d))
    unsafe = sum(1 for d in remaining if d.fix is not None and not d.fix.safe and not settings.unsafe_fixes)
    textual = args.format in TEXT_FORMATS
    color = textual and output is sys.stdout and _use_color(sys.stdout)
    layout = args.format
    if layout == "text":
        layout = "full" if output is sys.stdout and hasattr(output, "isatty") and output.isatty() else "concise"
    if args.statistics:
        output.write(statistics.FORMATS["text" if textual else args.format](remaining, is_fixable=applied_by_fix))
    else:
        preview = api.fix_preview(settings)
        output.write(FORMATS[layout](
            remaining, color=color, rules=_selected_rules(settings) if args.format == "sarif" else (), settings=settings, outcome=outcome,
            is_fixable=lambda d: d.fix is not None, fixed_text=preview,
            fix_edits=lambda d: api.fix_edits(d, preview),
        ))
    if not textual or args.quiet:
        return
    if args.show_fixes and outcome.fixed_codes:
        from seedlint.rules import RULES

        output.write(text.applied_fixes(outcome.fixed_codes, {r.code: r.name for r in RULES}))
    output.write(text.summary(
        remaining, fixable, sum(outcome.fixed.values()), color,
        files_checked=outcome.files_checked, unchecked=len(outcome.errors), unsafe=unsafe,
    ))
