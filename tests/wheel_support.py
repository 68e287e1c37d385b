"""A pinned wheel a test fetches itself (``pip download --no-deps``) and unpacks into a
folder to import from: for libraries whose declared dependencies cannot install here. Without
a package registry the test is skipped, unless ``SEEDLINT_REQUIRE_REGISTRY=1`` (CI)."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from test_real_trees import load_bench


def unpacked_wheel(tmp_path_factory, name: str, version: str) -> Path:
    bench = load_bench()
    try:
        wheel = bench.download(name, version, tmp_path_factory.mktemp("downloads"), binary_only=True)
    except bench.RegistryUnreachable as error:
        if os.environ.get("SEEDLINT_REQUIRE_REGISTRY"):
            raise
        pytest.skip(f"package registry unreachable, cannot fetch {name}=={version}: {error}")
    where = tmp_path_factory.mktemp(name)
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(where)
    return where
