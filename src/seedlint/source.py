"""Reading and writing source files without losing a byte: encodings, BOMs, newlines, modes.

Errors are values: a file that cannot be read or decoded yields an ``InputError`` that
the front end prints; nothing here raises for bad input.
"""

from __future__ import annotations

import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True)
class SourceFile:
    path: str
    text: str
    encoding: str
    raw: bytes

    @property
    def has_bom(self) -> bool:
        return self.encoding == "utf-8-sig"


@dataclass(frozen=True)
class InputError:
    """A file that could not be checked, and why (one line, for stderr)."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def read_source(path: str) -> Union[SourceFile, InputError]:
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except IsADirectoryError:
        return InputError(path, "is a directory, not a Python file")
    except PermissionError:
        return InputError(path, "cannot read: permission denied")
    except FileNotFoundError:
        return InputError(path, "cannot read: no such file (a dangling symlink?)")
    except OSError as error:
        return InputError(path, f"cannot read: {error.strerror or error}")
    return decode_source(path, raw)


def decode_source(path: str, raw: bytes) -> Union[SourceFile, InputError]:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as error:
        return InputError(path, f"cannot decode: {error.msg if hasattr(error, 'msg') else error}")
    try:
        text = raw.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        detail = error.reason if isinstance(error, UnicodeDecodeError) else str(error)
        position = f" at byte {error.start}" if isinstance(error, UnicodeDecodeError) else ""
        return InputError(path, f"cannot decode as {encoding}{position}: {detail}")
    return SourceFile(path=path, text=text, encoding=encoding, raw=raw)


def encode_source(source: SourceFile, text: str) -> bytes:
    return text.encode(source.encoding)


class ChangedOnDisk(Exception):
    """The file changed between analysis and write; it is left as it is now."""


def write_atomically(source: SourceFile, text: str) -> None:
    """Replace the file with ``text`` in its original encoding, keeping its mode.

    The new content goes to a temporary file in the same directory, then replaces the
    original with one rename, so a reader never sees half a file. If the file on disk no
    longer holds what was analysed, nothing is written.
    """
    path = source.path
    real = os.path.realpath(path)
    with open(real, "rb") as handle:
        if handle.read() != source.raw:
            raise ChangedOnDisk(path)
    mode = stat.S_IMODE(os.stat(real).st_mode)
    data = encode_source(source, text)
    directory = os.path.dirname(real) or "."
    handle, temporary = tempfile.mkstemp(prefix=".seedlint-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, real)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
