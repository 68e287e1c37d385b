"""The engine: the one analysis that the CLI, the flake8 plugin and the fixer all call.

discover -> prefilter -> parse + facts (cached by content) -> project index -> rules ->
noqa/select filtering; and for ``--fix``, fixes applied to a fixed point, verified to
parse, then written atomically once per file.
"""

from __future__ import annotations

import ast
import gc
import hashlib
import os
import pickle
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set, TYPE_CHECKING, Tuple, Union

from seedlint.analysis import inputs
from seedlint.analysis.focus import focused_modules
from seedlint.cache import DiskCache, cache_key, code_fingerprint
from seedlint.config import Settings
from seedlint.diagnostics import Diagnostic
from seedlint.discovery import Target, discover
from seedlint import legacy_names, timing
from seedlint.notebook_writer import written_back
from seedlint.notebooks import SUFFIX as NOTEBOOK_SUFFIX, Notebook, in_notebooks, read_notebook
from seedlint.source import InputError, SourceFile, read_source, too_large_to_parse

if TYPE_CHECKING:
    from seedlint.analysis.index import ProjectIndex
    from seedlint.facts.model import ModuleFacts
    from seedlint.rules import Project, Rule

MAX_FIX_ROUNDS = 10


@dataclass
class Result:
    diagnostics: List[Diagnostic] = field(default_factory=list)
    errors: List[InputError] = field(default_factory=list)
    files_checked: int = 0
    checked: Set[str] = field(default_factory=set)
    """Absolute paths of the files counted in ``files_checked``."""
    fixed: Dict[str, int] = field(default_factory=dict)
    """Shown path -> number of fixes applied."""
    new_text: Dict[str, Tuple[SourceFile, str]] = field(default_factory=dict)
    """Shown path -> (original source, fixed text), for --fix and --diff."""
    fixed_codes: Dict[str, Dict[str, int]] = field(default_factory=dict)
    """Shown path -> rule code -> fixes applied."""


def parse_error(path: str, error: Exception, text: Optional[str] = None) -> InputError:
    import libcst as cst

    if text is not None:  # Python's own parser names the right line and column; libcst's may not
        try:
            compile(text, path, "exec", dont_inherit=True, flags=0x400)  # ast.PyCF_ONLY_AST
        except SyntaxError as python_error:
            return InputError(path, f"syntax error at line {python_error.lineno}, column {python_error.offset}: {python_error.msg}")
        except Exception:
            pass
    if isinstance(error, cst.ParserSyntaxError):
        return InputError(path, f"syntax error at line {error.raw_line}, column {error.raw_column + 1}: {error.message}")
    return InputError(path, f"cannot parse: {error}")


def _parse_facts(job: Tuple[str, str, str, bool]) -> Union[ModuleFacts, InputError]:
    from seedlint.facts.collector import collect_facts

    path, text, name, is_package = job
    try:
        with timing.phase("parse"):
            module, legacy = legacy_names.parsed(text)
            if legacy is not None:
                text = legacy.text  # x.cuda(async=True): Python 3.6 code
    except Exception as error:  # ParserSyntaxError, and RecursionError on pathological nesting
        return parse_error(path, error, job[1])
    try:
        with timing.phase("facts"):
            return collect_facts(module, name, path, is_package, text)
    except Exception as error:  # an internal error: this file is not analysed, the run goes on
        return InputError(path, f"internal error while analysing this file, skipped: {error!r}")
    finally:
        del module
        if not gc.isenabled():
            gc.collect(0)  # this file's cycles only: survivors move on, so no object is walked twice


NOT_USED = "not-used"
"""The verdict for a file whose trigger names are only mentioned, never used."""


@contextmanager
def collection_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the duration.

    Parsing builds and drops hundreds of thousands of nodes, and receiving facts from a
    worker builds as many small objects; each full collection would walk every live object
    again (a quarter of the analysis time, and most of the cost of unpickling). Nodes and
    facts are freed by reference counting; the cycles a parse leaves (libcst evaluates
    string literals with ``ast.literal_eval``, whose closures form cycles) are collected
    after each file by a young-generation collection, which walks only that file's objects."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _root_facts(job: Tuple[str, str, str, bool, FrozenSet[str], Optional[ast.AST]]) -> Union[ModuleFacts, InputError, str]:
    path, text, name, is_package, names, tree = job
    with timing.phase("prefilter"):
        from seedlint.prefilter import uses_any

        used = uses_any(text, names, tree)
    if not used:
        return NOT_USED
    return _parse_facts((path, text, name, is_package))


class FactsStore:
    """Module facts by content: in memory, then in the disk cache, else parsed once.

    Checked files go through ``roots``: the syntactic prefilter and the parse run
    together, in worker processes when there are enough files, and both verdicts are
    cached, so a warm run neither parses nor re-reads a file's syntax.

    A ``compact`` store keeps facts in memory pickled, as single bytes objects: a
    long-lived process that runs other code too (flake8) then does not carry hundreds of
    thousands of small objects that every full garbage collection has to walk."""

    def __init__(self, cache: Optional[DiskCache] = None, jobs: int = 1, compact: bool = False) -> None:
        self.cache = cache
        self.jobs = max(1, jobs)
        self.compact = compact
        self._memory: Dict[str, Union[ModuleFacts, InputError, str, bytes]] = {}

    def _known(self, key: str):
        found = self._memory.get(key)
        if found is None and self.cache is not None:
            found = self.cache.get(key)
            if found is not None:
                self._remember(key, found)
        if isinstance(found, bytes):
            return pickle.loads(found)
        return found

    def _remember(self, key: str, value) -> Optional[bytes]:
        """Keep ``value`` in memory; its pickle when the store is compact."""
        if self.compact and not isinstance(value, str):
            try:
                pickled = self._memory[key] = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
                return pickled
            except (RecursionError, pickle.PicklingError):
                pass  # facts of a very deeply nested expression: kept as they are
        self._memory[key] = value
        return None

    def _store(self, key: str, value) -> None:
        pickled = self._remember(key, value)
        if self.cache is not None:
            self.cache.put(key, value, pickled)

    def facts(self, path: str, text: str, name: str, is_package: bool) -> Union[ModuleFacts, InputError]:
        key = cache_key(text, path, name, is_package)
        found = self._known(key)
        if found is None:
            found = _parse_facts((path, text, name, is_package))
            self._store(key, found)
        return found

    def roots(
        self, jobs: List[Tuple[str, str, str, bool]], names: FrozenSet[str], trees: Optional[Dict[str, ast.AST]] = None
    ) -> List[Union[ModuleFacts, InputError, str]]:
        """For each (path, text, module name, is_package): its facts, a parse error, or
        NOT_USED when the file only mentions the trigger names. ``trees`` holds the stdlib
        syntax trees a caller already has (flake8's), by path, so they are not parsed again."""
        trees = trees or {}
        salt = "\0".join(sorted(names))
        verdict_keys = [cache_key(text, path, f"{name}\0prefilter\0{salt}", is_package) for path, text, name, is_package in jobs]
        facts_keys = [cache_key(text, path, name, is_package) for path, text, name, is_package in jobs]
        results: List = [None] * len(jobs)
        missing = []
        for position, job in enumerate(jobs):
            if isinstance(self._known(verdict_keys[position]), str):
                results[position] = NOT_USED
                continue
            found = self._known(facts_keys[position])
            if found is not None:
                results[position] = found
            else:
                missing.append(position)
        for position, found in zip(missing, self._compute([(*jobs[p], names, trees.get(jobs[p][0])) for p in missing])):
            results[position] = found
            if isinstance(found, str):
                self._store(verdict_keys[position], NOT_USED)
            else:
                self._store(facts_keys[position], found)
        return results

    def _compute(self, jobs: List[Tuple]) -> Iterator:
        if self.jobs < 2 or len(jobs) < 8:
            return map(_root_facts, jobs)
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
        # Largest files first, one at a time: a few big modules dominate, and they must not
        # end up queued behind each other in one worker's chunk.
        order = sorted(range(len(jobs)), key=lambda i: -len(jobs[i][1]))
        results: List = [None] * len(jobs)
        with ProcessPoolExecutor(max_workers=self.jobs, mp_context=context) as pool:
            for position, found in zip(order, pool.map(_root_facts, [(*jobs[i][:-1], None) for i in order])):
                results[position] = found
        return iter(results)


class Engine:
    def __init__(
        self,
        settings: Settings,
        rules: Optional[Sequence[Rule]] = None,
        honor_noqa: bool = True,
        jobs: int = 1,
        cache: Optional[DiskCache] = None,
        progress: Optional[Callable[[str], None]] = None,
    ) -> None:
        self.settings = settings
        self._given_rules = rules
        self.honor_noqa = honor_noqa
        self.store = FactsStore(cache, jobs)
        self.progress = progress or (lambda state: None)
        """Told where a run is (``"read 120 of 2296 files"``), for a progress line."""

    # The rules (and the analysis they import) load only once some file is to be checked.
    @cached_property
    def available_rules(self) -> List["Rule"]:
        """The rules this engine was given, or every rule seedlint has; selected or not."""
        if self._given_rules is None:
            from seedlint.rules import RULES

            return list(RULES)
        return list(self._given_rules)

    @cached_property
    def rules(self) -> List["Rule"]:
        return [r for r in self.available_rules if self.settings.is_selected(r.code)]

    @cached_property
    def tokens(self) -> Tuple[bytes, ...]:
        """Every rule's triggers, selected or not: the files analysed do not depend on
        ``--select``, so a rule reports alone what it reports beside the others (a rule
        starts from files that other rules' triggers keep: suncet's module-level
        ``torch.manual_seed``, kept by an epoch loop's spelling)."""
        tokens = set()
        for rule in self.available_rules:
            tokens.update(rule.triggers(self.settings))
        return tuple(sorted(tokens))

    @cached_property
    def names(self) -> FrozenSet[str]:
        """The tokens as the syntactic prefilter looks for them in names: the last word of a
        phrase (``b"for epoch"`` is matched in the bytes, ``epoch`` among the names)."""
        return frozenset(t.decode("ascii", "replace").rsplit(" ", 1)[-1] for t in self.tokens)

    def mentions(self, raw: bytes) -> bool:
        """The byte-level prefilter: could any selected rule start from this file? (A
        substring test per token is about twice as fast as one alternation pattern.)"""
        return any(token in raw for token in self.tokens)

    # ------------------------------------------------------------------ public API
    def check(self, paths: Iterable[str]) -> Result:
        """Diagnostics for the files under ``paths``. The project those files belong to is
        analysed whole, so a run over some of its files reports what a run over all of
        them reports there, plus findings elsewhere that depend on them."""
        paths = list(paths)
        with timing.phase("discovery"):
            given = list(discover(paths, self.settings))
            scope = None if self._covers_project(paths) else self.project_scope(given)
        if scope is None:
            return self._check_targets(given)
        return restricted(self._check_focused(scope, given), given)

    def _check_focused(self, scope: List[Target], given: List[Target]) -> Result:
        """The project's result as far as ``given`` can see it: the stored whole-project
        result while nothing it read has changed, else an analysis that judges only the
        loaders whose modules may reach the given files or be reached from them
        (``analysis.focus``)."""
        cache = self.store.cache
        if cache is not None:
            with cache.locked():
                stored = cache.get(self._run_key(scope))
            if stored is not None and all(_stat(path) == seen for path, seen in stored[0]):
                return stored[1]
        if os.environ.get("SEEDLINT_FOCUS") == "0":  # the whole analysis, for bench/focus_parity.py
            return self._check_targets(scope)
        return self._analyse(scope, {}, focus=[t.absolute for t in given])

    def _covers_project(self, paths: List[str]) -> bool:
        """A given directory holds the whole project (``seedlint .`` at its root)."""
        root = self.settings.project_root
        if root is None:
            return False
        real_root = os.path.realpath(root)
        for path in paths:
            if os.path.isdir(path):
                real = os.path.realpath(path)
                if real_root == real or real_root.startswith(real + os.sep):
                    return True
        return False

    def project_scope(self, given: List[Target]) -> Optional[List[Target]]:
        """Every file of the project (under its root, with the configured excludes) plus
        the given ones, when the given files are not the whole project already."""
        root = self.settings.project_root
        if root is None or not given:
            return None
        given_paths = {os.path.realpath(t.absolute) for t in given}
        scope = list(given)
        for target in discover([root], self.settings):
            if os.path.realpath(target.absolute) not in given_paths:
                scope.append(Target(_shown_path(target.absolute), target.absolute))
        return scope if len(scope) > len(given) else None

    def _check_targets(self, targets: List[Target], trees: Optional[Dict[str, ast.AST]] = None) -> Result:
        cache = self.store.cache
        if cache is None:
            return self._analyse(targets, {}, trees)
        key = self._run_key(targets)
        with cache.locked():  # concurrent runs over one project (flake8's workers) analyse it once
            stored = cache.get(key)
            if stored is not None and all(_stat(path) == seen for path, seen in stored[0]):
                return stored[1]
            result = self._analyse(targets, {}, trees)
            linted = {t.absolute for t in targets}
            dependencies = [(path, _stat(path)) for path in self._last_index.modules if path not in linted]
            dependencies += [(path, _stat(path)) for path in sorted(self._last_inputs)]
            cache.put(key, (dependencies, result))
        return result

    def check_file_in_project(self, path: str, text: str, tree: Optional[ast.AST] = None) -> Result:
        """The findings anchored in one file, from the analysis of its whole project (done
        once per engine): the flake8 plugin's entry. A file outside the project's files, or
        whose text is not what is on disk, is analysed on its own. ``tree`` is the file's
        stdlib syntax tree when the caller has it (flake8 does), so it is not parsed again."""
        absolute = os.path.abspath(path)
        given = [Target(path, absolute)]
        if not hasattr(self, "_whole"):
            scope = self.project_scope(given)
            trees = {absolute: tree} if tree is not None else None
            self._whole = (None, None) if scope is None else ({t.absolute for t in scope}, self._check_targets(scope, trees))
        paths, whole = self._whole
        on_disk = read_source(absolute)
        if paths is None or absolute not in paths or isinstance(on_disk, InputError) or on_disk.text != text:
            return self.check_source(path, text, tree)
        result = restricted(whole, given)
        result.diagnostics = [d for d in result.diagnostics if os.path.abspath(d.path) == absolute]
        return result

    def _run_key(self, targets: List[Target]) -> str:
        """A run over unchanged files (same size and modification time, as ruff's cache
        decides) with the same settings returns the stored result without analysis."""
        # The installed code and the settings decide the rules and what they trigger on;
        # rules given by a caller are named, since they may be any code.
        given = [(type(r).__module__, type(r).__qualname__, r.code) for r in self._given_rules] if self._given_rules is not None else None
        digest = hashlib.sha256(f"{code_fingerprint()}\0{self.honor_noqa}\0{self.settings!r}\0{given!r}".encode())
        for target in targets:
            digest.update(f"{target.shown}\0{target.absolute}\0{_stat(target.absolute)}\n".encode())
        return cache_key(digest.hexdigest(), "<run>", "", False)

    def check_text(self, filename: str, text: str) -> Result:
        """Check ``text`` as if it were the file ``filename`` (stdin with ``--stdin-filename``)."""
        absolute = self._take_text(filename, text)
        given = [Target(filename, absolute)]
        scope = self.project_scope(given)
        result = self._analyse(scope or given, {absolute: text})
        return restricted(result, given) if scope else result

    def fix_text(self, filename: str, text: str) -> Result:
        """Fix ``text`` as if it were the file ``filename``; nothing is read back from disk."""
        absolute = self._take_text(filename, text)
        return self.fix([filename], {absolute: text}, [Target(filename, absolute)])

    def _take_text(self, filename: str, text: str) -> str:
        # Stdin with no file name (``seedlint -``) is a module of the current folder that
        # nothing can import, shown as ``-``.
        absolute = os.path.abspath("-.py" if filename == "-" else filename)
        self._ensure_state()
        raw = text.encode("utf-8", "surrogatepass")
        self._sources[absolute] = SourceFile(filename, text, "utf-8", raw)
        return absolute

    def _ensure_state(self) -> None:
        if not hasattr(self, "_sources"):
            self._sources: Dict[str, SourceFile] = {}
            self._seen: Dict[str, Tuple[int, int]] = {}
            """Length and hash of the bytes first read, for files whose text is not kept."""
            self._shown: Dict[str, str] = {}
            self._notebooks: Dict[str, Notebook] = {}

    def fix(self, paths: Iterable[str], overrides: Optional[Dict[str, str]] = None, targets: Optional[List[Target]] = None) -> Result:
        """Compute fixes to a fixed point; the caller decides whether to write them."""
        from seedlint.fixes import apply_fixes

        given = targets if targets is not None else list(discover(paths, self.settings))
        writable = {t.absolute for t in given}
        targets = self.project_scope(given) or given
        overrides = dict(overrides or {})
        applied: Dict[str, int] = {}
        applied_codes: Dict[str, Dict[str, int]] = {}
        result = self._analyse(targets, overrides, fixing=True)
        broken = {e.path for e in result.errors}
        notebook_json: Dict[str, str] = {}
        """The fixed JSON text of each notebook a fix edits."""
        unplaceable: Set[str] = set()
        """Notebooks with an edit that falls outside any one cell: left as they are."""
        for _ in range(MAX_FIX_ROUNDS):
            by_file: Dict[str, list] = {}
            codes_by_file: Dict[str, list] = {}
            for diagnostic in result.diagnostics:
                fix = diagnostic.fix
                if fix is None or not (fix.safe or self.settings.unsafe_fixes) or os.path.abspath(fix.path) not in writable:
                    continue
                if os.path.abspath(fix.path) in unplaceable:
                    continue
                by_file.setdefault(os.path.abspath(fix.path), []).append(fix)
                codes_by_file.setdefault(os.path.abspath(fix.path), []).append((fix, diagnostic.code))
            changed = False
            for absolute, fixes in by_file.items():
                shown = self._shown.get(absolute, absolute)
                if shown in broken:
                    continue
                original = self._original(absolute, shown)
                if isinstance(original, InputError):
                    broken.add(shown)
                    result.errors.append(original)
                    continue
                text = overrides.get(absolute, original.text)
                try:
                    new = apply_fixes(text, fixes, self.settings.line_length)
                    checked, _ = legacy_names.parsed(new)
                    compile(checked.code, shown, "exec", dont_inherit=True)
                except Exception as error:
                    broken.add(shown)
                    result.errors.append(InputError(shown, f"internal error while fixing, file left unchanged: {error!r}"))
                    overrides.pop(absolute, None)
                    continue
                if new != text and absolute in self._notebooks:
                    new = self._into_notebook(absolute, original, new, notebook_json)
                    if new is None:
                        unplaceable.add(absolute)
                        continue
                if new != text:
                    overrides[absolute] = new
                    kind = sorted(f.kind for f in fixes)[0]
                    done = {(f.span, code) for f, code in codes_by_file[absolute] if f.kind == kind}
                    applied[shown] = applied.get(shown, 0) + len(done)
                    for _, code in done:
                        applied_codes.setdefault(shown, {})[code] = applied_codes.get(shown, {}).get(code, 0) + 1
                    changed = True
            if not changed:
                break
            errors = result.errors
            result = self._analyse(targets, overrides, fixing=True)
            broken.update(e.path for e in result.errors)
            result.errors = _unique(errors + result.errors)
        for absolute, text in overrides.items():
            shown = self._shown.get(absolute, absolute)
            if shown in broken:
                continue
            original = self._sources[absolute]
            if absolute in notebook_json and absolute not in unplaceable:
                as_json = SourceFile(original.path, original.raw.decode(original.encoding), original.encoding, original.raw)
                result.new_text[shown] = (as_json, notebook_json[absolute])
            elif text != original.text and absolute not in self._notebooks:
                result.new_text[shown] = (original, text)
        result.fixed = {k: v for k, v in applied.items() if k in result.new_text}
        result.fixed_codes = {k: v for k, v in applied_codes.items() if k in result.new_text}
        return restricted(result, given) if len(targets) > len(given) else result

    def _into_notebook(self, absolute: str, original: SourceFile, fixed: str, notebook_json: Dict[str, str]) -> Optional[str]:
        """Write the fixed module back into the notebook's cells: its code as the next round
        analyses it (the notebook re-read, so cells map to the new lines), or None when an
        edit does not fall inside one cell."""
        raw = notebook_json.get(absolute) or original.raw.decode(original.encoding)
        written = written_back(raw, self._notebooks[absolute], fixed)
        if written is None:
            return None
        notebook = read_notebook(written)
        if notebook is None:
            return None
        notebook_json[absolute] = written
        self._notebooks[absolute] = notebook
        return notebook.text

    def check_source(self, path: str, text: str, tree: Optional[ast.AST] = None) -> Result:
        """Check one file whose text (and, when the caller has it, stdlib syntax tree) is
        given: the flake8 plugin's entry."""
        absolute = os.path.abspath(path)
        return self._analyse([Target(path, absolute)], {absolute: text}, {absolute: tree} if tree is not None else None)

    # ------------------------------------------------------------------ analysis
    def _load_source(self, absolute: str, overrides: Dict[str, str], shown: str) -> Union[SourceFile, InputError]:
        if absolute in overrides:
            base = self._sources.get(absolute)
            encoding = base.encoding if base is not None else "utf-8"
            raw = base.raw if base is not None else overrides[absolute].encode("utf-8", "surrogatepass")
            return SourceFile(shown, overrides[absolute], encoding, raw)
        source = read_source(absolute)
        if isinstance(source, InputError):
            return InputError(shown, source.reason)
        if absolute.endswith(NOTEBOOK_SUFFIX):
            if not self.mentions(source.raw):  # nothing a rule starts from: the JSON is not read
                self._notebooks[absolute] = Notebook("", (), ())
                return SourceFile(shown, "", source.encoding, source.raw)
            notebook = read_notebook(source.text)
            if notebook is None:
                return InputError(shown, "not a notebook: its JSON does not parse or has no cells")
            self._notebooks[absolute] = notebook
            return SourceFile(shown, notebook.text, source.encoding, source.raw)
        return SourceFile(shown, source.text, source.encoding, source.raw)

    def _original(self, absolute: str, shown: str) -> Union[SourceFile, InputError]:
        """The file as first read, which ``--fix`` edits and compares against. A file the
        byte prefilter passed over is read again now, and must still be what was analysed."""
        source = self._sources.get(absolute)
        if source is None:
            source = self._load_source(absolute, {}, shown)
            if isinstance(source, InputError):
                return source
            if self._seen.get(absolute, (len(source.raw), hash(source.raw))) != (len(source.raw), hash(source.raw)):
                return InputError(shown, "changed on disk while seedlint was fixing it; left as it is")
            self._sources[absolute] = source
        return source

    def _analyse(self, targets: List[Target], overrides: Dict[str, str], trees: Optional[Dict[str, ast.AST]] = None,
                 focus: Optional[List[str]] = None, fixing: bool = False) -> Result:
        with collection_paused(), inputs.recording() as read:
            result = self._analyse_now(targets, overrides, trees, focus, fixing)
        self._last_inputs = read
        return result

    def _quiet_key(self) -> str:
        """Where the files known to mention no trigger are stored: per project, installed code
        and trigger set."""
        digest = f"{code_fingerprint()}\0{self.settings.project_root}\0{self.tokens!r}"
        return cache_key(digest, "<quiet files>", "", False)

    def _quiet_files(self, overrides: Dict[str, str]) -> Dict[str, Tuple[int, int]]:
        """Python files that mentioned no trigger when last read, by (size, modification
        time): while those hold, the file is not read again (only ``--fix``, which must
        compare what it writes with what it read, reads everything)."""
        cache = self.store.cache
        if cache is None or overrides:
            return {}
        stored = cache.get(self._quiet_key())
        return stored if isinstance(stored, dict) else {}

    def _analyse_now(self, targets: List[Target], overrides: Dict[str, str], trees: Optional[Dict[str, ast.AST]],
                     focus: Optional[List[str]] = None, fixing: bool = False) -> Result:
        from seedlint.analysis.files import ProjectFiles
        from seedlint.analysis.index import ProjectIndex, module_identity

        result = Result()
        self._ensure_state()
        failures: Dict[str, str] = {}
        index = self._last_index = ProjectIndex(self._lazy_loader(overrides, failures), self.settings.project_root)
        roots: List[ModuleFacts] = []
        linted: Dict[str, str] = {}
        candidates = []
        known_quiet = self._quiet_files(overrides) if not fixing else {}
        quiet: Dict[str, Tuple[int, int]] = {}
        with timing.phase("read"):
            for number, target in enumerate(targets, 1):
                if number % 100 == 0:
                    self.progress(f"read {number} of {len(targets)} files")
                stat = _stat(target.absolute) if target.absolute not in overrides else None
                if stat is not None and known_quiet.get(target.absolute) == stat:
                    result.files_checked += 1
                    result.checked.add(target.absolute)
                    linted[target.absolute] = target.shown
                    self._shown[target.absolute] = target.shown
                    quiet[target.absolute] = stat
                    continue
                source = self._load_source(target.absolute, overrides, target.shown)
                if isinstance(source, InputError):
                    result.errors.append(source)
                    continue
                notebook = self._notebooks.get(target.absolute)
                if notebook is not None and not notebook.python:
                    continue  # a notebook of another language
                if not _is_python(target.absolute, source.raw) and notebook is None:
                    result.errors.append(InputError(target.shown, "not a Python file"))
                    continue
                result.files_checked += 1
                result.checked.add(target.absolute)
                linted[target.absolute] = target.shown
                self._shown[target.absolute] = target.shown
                raw = source.text.encode("utf-8", "surrogatepass") if target.absolute in overrides else source.raw
                if not self.mentions(raw):
                    self._seen.setdefault(target.absolute, (len(raw), hash(raw)))
                    if stat is not None and notebook is None and len(raw) == stat[0]:
                        quiet[target.absolute] = stat
                else:
                    self._sources.setdefault(target.absolute, source)  # the text only of files a rule can start from
                    too_large = too_large_to_parse(source, code_only=notebook is not None)
                    if too_large is not None:
                        result.errors.append(too_large)
                        continue
                    name, root, is_package = module_identity(target.absolute)
                    candidates.append((target, source, name, root, is_package))
        if quiet != known_quiet and self.store.cache is not None and not fixing and not overrides:
            self.store.cache.put(self._quiet_key(), quiet)
        self.progress(f"parsing the {len(candidates)} of {len(targets)} files that name a loader, a dataset or a Trainer")
        verdicts = self.store.roots([(t.absolute, src.text, n, p) for t, src, n, _, p in candidates], self.names, trees)
        for (target, _, _, root, _), facts in zip(candidates, verdicts):
            if isinstance(facts, str):
                continue
            if isinstance(facts, InputError):
                result.errors.append(InputError(target.shown, facts.reason))
                continue
            notebook = self._notebooks.get(target.absolute)
            if notebook is not None:
                facts.cells = tuple(zip(notebook.starts, notebook.cells))
            index.add(facts, root)
            roots.append(facts)
        from seedlint.rules import Project

        project = Project(index, roots, self.settings, ProjectFiles(t.absolute for t in targets))
        if focus is not None:
            with timing.phase("focus"):
                project.focus = focused_modules(focus, project.files, project.tree)
        for number, rule in enumerate(self.rules, 1):
            self.progress(f"rule {rule.code} ({number} of {len(self.rules)}) over {len(index.modules)} modules")
            with timing.phase("rules"):
                found = self._run_rule(rule, project, linted, result)
            for diagnostic in found:
                absolute = os.path.abspath(diagnostic.path)
                if absolute not in linted or self._suppressed(index, absolute, diagnostic):
                    continue
                severity = self.settings.severity_of(diagnostic.code, diagnostic.severity)
                if self._notebooks:
                    diagnostic = in_notebooks(diagnostic, self._notebooks.get(absolute), self._notebooks)
                result.diagnostics.append(_reshown(diagnostic, linted[absolute], severity))
        result.diagnostics = _merged(result.diagnostics)
        reported = {os.path.abspath(e.path) for e in result.errors}
        for path, reason in sorted(failures.items()):
            if path in reported or not self._in_project(path):
                continue
            shown = linted.get(path) or _shown_path(path)
            result.errors.append(InputError(shown, f"{reason}; loaders that use it could not be checked", needed=True))
        return result

    def _in_project(self, path: str) -> bool:
        root = self.settings.project_root
        return root is None or os.path.abspath(path).startswith(os.path.abspath(root) + os.sep)

    def _run_rule(self, rule: "Rule", project: "Project", linted: Dict[str, str], result: Result) -> List[Diagnostic]:
        """The rule's diagnostics. If it crashes, it runs again module by module, so the
        crash is reported against the file(s) it happens on and every other file is checked."""
        try:
            return list(rule.check(project))
        except Exception as error:
            whole_project_error = error
        found: List[Diagnostic] = []
        crashed = False
        for module in project.modules:
            try:
                found.extend(rule.check(type(project)(project.index, [module], project.settings, project.files)))
            except Exception as error:
                crashed = True
                shown = linted.get(os.path.abspath(module.path), module.path)
                result.errors.append(InputError(shown, f"internal error in {rule.code} ({_crash_site(error)}): {error!r}"))
        if not crashed:
            result.errors.append(InputError(_crash_site(whole_project_error) or "seedlint",
                                            f"internal error in {rule.code}: {whole_project_error!r}"))
        return found

    def _suppressed(self, index: ProjectIndex, absolute: str, diagnostic: Diagnostic) -> bool:
        if self.settings.is_ignored_in(absolute, diagnostic.code):
            return True
        if not self.honor_noqa:
            return False
        facts = index.modules.get(absolute)
        if facts is None or diagnostic.line not in facts.noqa:
            return False
        codes = facts.noqa[diagnostic.line]
        return codes is None or any(diagnostic.code.startswith(c) for c in codes)

    def _lazy_loader(self, overrides: Dict[str, str], failures: Dict[str, str]):
        """Loads a project module the analysis needs; one that cannot be read or parsed is
        noted in ``failures`` (absolute path -> reason), so the run can say what it could
        not check."""

        def load(path: str, name: str, is_package: bool) -> Optional[ModuleFacts]:
            shown = self._shown.get(path, path)
            source = self._load_source(path, overrides, shown)
            if isinstance(source, InputError):
                failures[path] = source.reason
                return None
            too_large = too_large_to_parse(source)
            if too_large is not None:
                failures[path] = too_large.reason
                return None
            facts = self.store.facts(path, source.text, name, is_package)
            if isinstance(facts, InputError):
                failures[path] = facts.reason
                return None
            return facts

        return load


PYTHON_SUFFIXES = (".py", ".pyw", ".pyi")


def _is_python(path: str, raw: bytes) -> bool:
    """A ``.py`` file, or a script whose first line runs Python."""
    if path.endswith(PYTHON_SUFFIXES):
        return True
    first = raw.split(b"\n", 1)[0]
    return first.startswith(b"#!") and b"python" in first


def _shown_path(path: str) -> str:
    """A path as the user would type it from here."""
    relative = os.path.relpath(path)
    return path if relative.startswith(".." + os.sep) else relative


def _stat(path: str) -> Optional[Tuple[int, int]]:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns)


def _merged(diagnostics: List[Diagnostic]) -> List[Diagnostic]:
    """Equal diagnostics once, with the files each depends on put together."""
    kept: Dict[Diagnostic, Diagnostic] = {}
    for diagnostic in diagnostics:
        if diagnostic in kept:
            kept[diagnostic].related.update(diagnostic.related)
        else:
            kept[diagnostic] = diagnostic
    return sorted(kept.values(), key=Diagnostic.sort_key)


def restricted(result: Result, given: List[Target]) -> Result:
    """The part of a whole-project result that a run over ``given`` reports: findings
    anchored in those files, findings elsewhere that depend on one of them (saying so),
    their input errors, and the modules some loader needed that could not be read."""
    from dataclasses import replace

    shown_of = {t.absolute: t.shown for t in given}
    kept = Result(fixed=result.fixed, new_text=result.new_text, fixed_codes=result.fixed_codes)
    for diagnostic in result.diagnostics:
        absolute = os.path.abspath(diagnostic.path)
        fix = diagnostic.fix if diagnostic.fix is not None and os.path.abspath(diagnostic.fix.path) in shown_of else None
        if absolute in shown_of:
            kept.diagnostics.append(replace(diagnostic, path=shown_of[absolute], fix=fix))
            continue
        causes = sorted(shown_of[p] for p in diagnostic.related if p in shown_of)
        if causes:
            note = f" (reported for {', '.join(causes)}, which this finding depends on)"
            kept.diagnostics.append(replace(diagnostic, message=diagnostic.message + note, fix=fix))
    for error in result.errors:
        absolute = os.path.abspath(error.path)
        if absolute in shown_of:
            kept.errors.append(replace(error, path=shown_of[absolute]))
        elif error.needed:
            kept.errors.append(error)
    kept.checked = {t.absolute for t in given} & result.checked
    kept.files_checked = len(kept.checked)
    return kept


def _reshown(diagnostic: Diagnostic, shown: str, severity: str) -> Diagnostic:
    from dataclasses import replace

    return replace(diagnostic, path=shown, severity=severity)


def _unique(errors: List[InputError]) -> List[InputError]:
    seen, kept = set(), []
    for error in errors:
        if (error.path, error.reason) not in seen:
            seen.add((error.path, error.reason))
            kept.append(error)
    return kept


def _crash_site(error: Exception) -> Optional[str]:
    frames = traceback.extract_tb(error.__traceback__)
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else None
