"""Reading and writing source files without losing a byte: encodings, BOMs, newlines, modes.

Errors are values: a file that cannot be read or decoded yields an ``InputError`` that
the front end prints; nothing here raises for bad input.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from typing import Optional, Union


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
    needed: bool = False
    """A module the analysis of some loader needed (rather than a file it was asked to check)."""

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def read_source(path: str) -> Union[SourceFile, InputError]:
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except IsADirectoryError:
        try:
            os.listdir(path)
        except OSError as error:
            return InputError(path, f"cannot read this folder ({error.strerror or error}): its files are not checked")
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


MAX_PARSE_BYTES = 2 * 1024 * 1024
"""Files larger than this are not parsed: libcst needs seconds and about 1 GB of memory
per megabyte, so a 20 MB generated module would stall the whole run. No hand-written
training script comes near it."""


def too_large_to_parse(source: SourceFile, code_only: bool = False) -> Optional[InputError]:
    """The error to report for a file that passed the prefilter but is too large to parse;
    ``code_only``: measure the code, not the file (a notebook's outputs are not parsed)."""
    measured = len(source.text.encode("utf-8", "surrogatepass")) if code_only else len(source.raw)
    if measured <= MAX_PARSE_BYTES:
        return None
    size = measured / (1024 * 1024)
    return InputError(source.path, f"not analysed: {size:.1f} MB is over seedlint's {MAX_PARSE_BYTES // (1024 * 1024)} MB limit for parsing")


def encode_source(source: SourceFile, text: str) -> bytes:
    return text.encode(source.encoding)


class ChangedOnDisk(Exception):
    """The file changed between analysis and write; it is left as it is now."""


def write_atomically(source: SourceFile, text: str) -> None:
    """Replace the file with ``text`` in its original encoding, keeping its mode and owner.

    The new content goes to a temporary file in the same directory, then replaces the
    original with one rename, so a reader never sees half a file. If the file on disk no
    longer holds what was analysed, nothing is written. A file the user made read-only
    is never replaced (``PermissionError`` "read-only"), even by root, who could.
    """
    path = source.path
    real = os.path.realpath(path)
    status = os.stat(real)
    mode = stat.S_IMODE(status.st_mode)
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(real, os.W_OK):
        raise PermissionError(errno.EACCES, "read-only", path)
    with open(real, "rb") as handle:
        if handle.read() != source.raw:
            raise ChangedOnDisk(path)
    data = encode_source(source, text)
    directory = os.path.dirname(real) or "."
    handle, temporary = tempfile.mkstemp(prefix=".seedlint-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        _keep_owner(temporary, status)
        os.replace(temporary, real)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _keep_owner(path: str, status: os.stat_result) -> None:
    """Give the new file the original's owner and group when allowed (root fixing a
    user's tree); otherwise it belongs to whoever runs seedlint, as with any editor."""
    if (status.st_uid, status.st_gid) == (os.geteuid(), os.getegid()) or not hasattr(os, "chown"):
        return
    try:
        os.chown(path, status.st_uid, status.st_gid)
    except OSError:
        pass
