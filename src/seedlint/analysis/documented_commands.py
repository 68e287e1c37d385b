"""The command lines a project documents for its own programs: what its shell scripts,
Makefiles and README-style documents pass to a Python script's options.

A command-line option's default is what the program runs with unless a command passes the
option. The commands a project writes down (``scripts/train.sh``, a README code block,
a Makefile recipe) are the programs it documents: ``python train.py --num_workers 8``
documents ``--num_workers`` as 8. The value flow reads an option's documented values here, so
a rule decides "does this loader start workers" from the default and those commands, and
says where a value was passed.

A command is a line (with ``\\`` continuations joined) that runs Python (``python``,
``python3.8``, ``torchrun``, ``accelerate launch``, ``deepspeed``, ``python -m
torch.distributed.launch``, with environment assignments or ``srun`` before it). Its options
are the words after the script or module it runs: ``--flag value``, ``--flag=value``, a
bare ``--flag``, and the positional words before the first option (``train.py
configs/s3dis.yaml``), filed by position. Shell variables assigned earlier in the same file (``WORKERS=8``) are
substituted; a value that still reads a variable is unknown. Options are matched by their
spelling, whichever script a command runs: a project's scripts share option names.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from seedlint.analysis import inputs
from seedlint.discovery import ProjectTree

MAX_FILES = 2000
MAX_FILE_BYTES = 512 * 1024

SCRIPT_SUFFIXES = (".sh", ".bash", ".zsh", ".slurm", ".sbatch", ".job", ".pbs", ".cmd", ".bat")
DOCUMENT_SUFFIXES = (".md", ".markdown", ".rst")
MAKEFILES = ("Makefile", "makefile", "GNUmakefile", "justfile")

_LAUNCHERS = frozenset({"torchrun", "deepspeed", "horovodrun", "mpirun", "srun", "accelerate", "launch", "nohup", "time", "exec", "env", "sudo", "xvfb-run", "CUDA_VISIBLE_DEVICES"})
_PYTHON = re.compile(r"^(?:.*/)?python(?:[23](?:\.\d+)?)?$")
_LAUNCHER_MODULES = frozenset({"torch.distributed.launch", "torch.distributed.run", "accelerate.commands.launch"})
_ASSIGNMENT = re.compile(r"^\s*(?:export\s+|local\s+|declare\s+)?([A-Za-z_][A-Za-z0-9_]*)=(\S*)\s*(?:#.*)?$")
_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")
_PROMPT = re.compile(r"^(?:\$|>|%|!)\s*")
_MAY_RUN_PYTHON = re.compile(r"python|torchrun|deepspeed|accelerate|horovodrun|\.py\b")
_RUNS_A_SCRIPT = re.compile(r"\.py\b|(?:^|\s)-m\s")
"""A command that runs a script names it (``train.py``) or its module (``-m pkg.train``)."""
_INLINE_CODE = re.compile(r"`([^`]+)`")
_SEPARATORS = re.compile(r"\s*(?:&&|\|\||;|\|)\s*")
_REDIRECTION = re.compile(r"^\d*[<>&]")


@dataclass(frozen=True)
class Passed:
    """One option a documented command passes: its text (None for a bare flag or a value
    that reads an unknown variable), and where."""

    flag: str
    text: Optional[str]
    file: str
    line: int
    script: str
    """The script the command runs as written (``tools/train.py``), or ``-m pkg.train``."""
    bare: bool = False


class DocumentedCommands:
    """The options a project's documented commands pass, by flag spelling; read on the first
    question."""

    def __init__(self, tree: ProjectTree) -> None:
        self.tree = tree
        self.root = tree.root
        self._by_flag: Optional[Dict[str, List[Passed]]] = None

    def passed(self, flags: Sequence[str]) -> List[Passed]:
        """What the documented commands pass to any of ``flags`` (``--num_workers``, ``-j``);
        a long flag also matches its other spelling (``--num-workers``)."""
        if self._by_flag is None:
            self._by_flag = self._read()
        found: List[Passed] = []
        for flag in _spellings(flags):
            found.extend(self._by_flag.get(flag, ()))
        return sorted(found, key=lambda passed: (passed.file, passed.line))

    def _read(self) -> Dict[str, List[Passed]]:
        table: Dict[str, List[Passed]] = {}
        if not self.root or not os.path.isdir(self.root):
            return table
        for path in _command_files(self.tree):
            relative = os.path.relpath(path, self.root).replace(os.sep, "/")
            for passed in _options_in(path, relative):
                table.setdefault(passed.flag, []).append(passed)
        return table


def script_paths(passed: Passed, root: str, python_files: Sequence[str]) -> Tuple[str, ...]:
    """The project files a command's script may be: the path as written from the documenting
    file's folder or from the root, else the project files whose path ends with it, below the
    documenting file's folder when some are, else anywhere (a README in ``docs/`` naming
    ``train.py``) unless that folder holds scripts of its own, none of them the one named;
    for ``-m pkg.train``, ``pkg/train.py`` (or its ``__main__.py``) anywhere in the project."""
    if passed.script.startswith("-m "):
        stem = passed.script[3:].replace(".", "/")
        endings = ("/" + stem + ".py", "/" + stem + "/__main__.py")
        return tuple(p for p in python_files if p.replace(os.sep, "/").endswith(endings))
    written = passed.script.replace("\\", "/")
    folder = os.path.dirname(os.path.join(root, passed.file))
    known = set(python_files)
    for base in (folder, root):
        candidate = os.path.normpath(os.path.join(base, written))
        if candidate in known:
            return (candidate,)
    tail = "/" + os.path.normpath(written).replace(os.sep, "/").lstrip("./")
    ending = tuple(p for p in python_files if p.replace(os.sep, "/").endswith(tail))
    below = tuple(p for p in ending if p.startswith(folder + os.sep))
    if below or folder == root:
        return below or ending
    if any(os.path.dirname(p) == folder for p in python_files):
        return ()  # a folder of scripts whose README names one it does not hold (a renamed script)
    return ending


def _spellings(flags: Sequence[str]) -> List[str]:
    found: List[str] = []
    for flag in flags:
        variants = [flag]
        if flag.startswith("--"):
            variants += ["--" + flag[2:].replace("_", "-"), "--" + flag[2:].replace("-", "_")]
        for variant in variants:
            if variant not in found:
                found.append(variant)
    return found


def _command_files(tree: ProjectTree) -> Iterator[str]:
    def wanted(name: str) -> bool:
        return name.endswith(SCRIPT_SUFFIXES + DOCUMENT_SUFFIXES) or name in MAKEFILES

    for count, path in enumerate(tree.files(wanted), 1):
        if count > MAX_FILES:
            return
        try:
            if os.path.getsize(path) > MAX_FILE_BYTES:
                continue
        except OSError:
            continue
        yield path


def _options_in(path: str, relative: str) -> Iterator[Passed]:
    try:
        inputs.read(path)
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return
    document = path.endswith(DOCUMENT_SUFFIXES)
    variables: Dict[str, str] = {}
    for line_number, command in _logical_lines(text):
        assigned = _ASSIGNMENT.match(command)
        if assigned and not document:
            variables[assigned.group(1)] = assigned.group(2).strip("'\"")
            continue
        if not _MAY_RUN_PYTHON.search(command):
            continue
        spans = _INLINE_CODE.findall(command) if document else []
        for piece in spans or [command]:
            for part in _SEPARATORS.split(_PROMPT.sub("", piece.strip().strip("`"))):
                part = _substituted(part, variables)
                if not _RUNS_A_SCRIPT.search(part):
                    continue
                found = _script_arguments(part)
                if found is not None:
                    script, arguments = found
                    yield from _passed(arguments, relative, line_number, script)


def _logical_lines(text: str) -> Iterator[Tuple[int, str]]:
    """Lines with ``\\`` continuations joined, numbered by their first line."""
    pending: List[str] = []
    start = 0
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.rstrip()
        if not pending:
            start = number
        if stripped.endswith("\\"):
            pending.append(stripped[:-1])
            continue
        pending.append(stripped)
        yield start, " ".join(pending)
        pending = []
    if pending:
        yield start, " ".join(pending)


def _substituted(command: str, variables: Dict[str, str]) -> str:
    return _VARIABLE.sub(lambda m: variables.get(m.group(1), m.group(0)), command)


def _script_arguments(command: str) -> Optional[Tuple[str, List[str]]]:
    """The script or module a Python command runs (``-m pkg.train`` for a module) and the
    words after it; None when the command runs no Python script."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return None
    launched = False
    index = 0
    while index < len(words):
        word = words[index]
        if _PYTHON.match(word) or word in _LAUNCHERS or "=" in word and not word.startswith("-") and not launched:
            launched = launched or bool(_PYTHON.match(word)) or word in ("torchrun", "deepspeed", "accelerate", "horovodrun")
            index += 1
            continue
        if not launched:
            return None
        if word == "-m" and index + 1 < len(words):
            module = words[index + 1]
            if module in _LAUNCHER_MODULES:
                index += 2
                continue
            return f"-m {module}", words[index + 2:]
        if word.endswith(".py"):
            return word, words[index + 1:]
        index += 1
    return None


def positional_flag(position: int) -> str:
    """The key under which a command's ``position``-th positional word is filed."""
    return f"#{position}"


def _passed(arguments: List[str], file: str, line: int, script: str) -> Iterator[Passed]:
    for position, word in enumerate(_leading_positionals(arguments)):
        yield Passed(positional_flag(position), _known(word), file, line, script)
    index = 0
    while index < len(arguments):
        word = arguments[index]
        index += 1
        if not word.startswith("-") or word == "-" or word == "--" or _number(word):
            continue
        if "=" in word:
            flag, _, text = word.partition("=")
            yield Passed(flag, _known(text), file, line, script)
            continue
        following = arguments[index] if index < len(arguments) else None
        if following is None or (following.startswith("-") and not _number(following)):
            yield Passed(word, None, file, line, script, bare=True)
            continue
        index += 1
        yield Passed(word, _known(following), file, line, script)


def _leading_positionals(arguments: List[str]) -> List[str]:
    """The words before a command's first option (``configs/s3dis.yaml`` in ``train.py
    configs/s3dis.yaml --dist``): positional arguments, in order. After an option a word may be
    its value, so positions are counted only up to the first one; a redirection ends them."""
    found: List[str] = []
    for word in arguments:
        if word.startswith("-") and not _number(word) or _REDIRECTION.match(word):
            break
        found.append(word)
    return found


def _known(text: str) -> Optional[str]:
    """The text, unless it still reads a shell variable or a command's output."""
    return None if "$" in text or "`" in text else text


def _number(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True
