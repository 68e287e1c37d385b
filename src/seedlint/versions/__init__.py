"""Target versions: the torch, Lightning, Python and library versions a file's program runs on.

Read from the project's own files and code, never from what is installed where seedlint
runs, so the result is the same on every machine. Undeclared means "any version".
``ranges`` holds the interval type, ``declarations`` reads packaging files, ``model``
joins declarations, API evidence and implied bounds.
"""

from seedlint.versions.model import (
    PROJECT_MARKERS,
    STRONG_MARKERS,
    Resolution,
    evidence_ranges,
    find_project_root,
    nearest_ranges,
    resolve,
)
from seedlint.versions.ranges import ANY, Bound, VersionRange, between, range_from_specifiers, range_of

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

LIBRARY_PACKAGES = ("albumentations", "albumentationsx", "imgaug", "monai")
"""Libraries whose declared versions the library-RNG rules read (``knowledge``)."""

__all__ = [
    "ANY", "Bound", "LIBRARY_PACKAGES", "PROJECT_MARKERS", "STRONG_MARKERS", "Resolution", "VersionRange", "between",
    "evidence_ranges", "find_project_root", "nearest_ranges", "range_from_specifiers", "range_of", "resolve", "tomllib",
]
