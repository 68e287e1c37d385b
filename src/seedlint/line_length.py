"""The line length a project keeps to, as its formatter or linter declares it: black's
or ruff's ``line-length`` (``pyproject.toml``, ``ruff.toml``), else flake8's
``max-line-length`` (``setup.cfg``, ``tox.ini``, ``.flake8``), else black's default, 88.
Fixes wrap the calls they lengthen past it."""

from __future__ import annotations

import configparser
import os
from typing import Optional

from seedlint.versions import tomllib

DEFAULT = 88


def _toml(path: str) -> dict:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return {}


def _positive(value: object) -> Optional[int]:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    if isinstance(value, str) and value.strip().isdigit() and int(value) > 0:
        return int(value)
    return None


def declared_line_length(root: Optional[str]) -> int:
    if not root:
        return DEFAULT
    tool = _toml(os.path.join(root, "pyproject.toml")).get("tool", {})
    for table in (tool.get("black", {}), tool.get("ruff", {})):
        found = _positive(table.get("line-length")) if isinstance(table, dict) else None
        if found:
            return found
    for name in ("ruff.toml", ".ruff.toml"):
        found = _positive(_toml(os.path.join(root, name)).get("line-length"))
        if found:
            return found
    for name in ("setup.cfg", "tox.ini", ".flake8"):
        parser = configparser.RawConfigParser()
        try:
            parser.read(os.path.join(root, name), encoding="utf-8")
        except (configparser.Error, UnicodeDecodeError):
            continue
        if parser.has_section("flake8"):
            for key in ("max-line-length", "max_line_length"):
                found = _positive(parser.get("flake8", key, fallback=None))
                if found:
                    return found
    return DEFAULT
