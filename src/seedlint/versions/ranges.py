"""Version ranges: one interval of PEP 440 versions, each bound with the reason that set it.

A range is built from PEP 440 specifier sets (``packaging`` parses them) and intersected
with others; every bound remembers where it came from (``requirements.txt:3 torch>=1.9``,
``lightning>=2.0 requires torch>=1.11``), so ``--show-settings`` can say why a range is
what it is. ``!=`` excludes single releases, which no rule asks about: it narrows nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Tuple

from packaging.specifiers import InvalidSpecifier, Specifier, SpecifierSet
from packaging.version import InvalidVersion, Version


@dataclass(frozen=True)
class Bound:
    """One end of a range: ``version``, included or not, and why it is there."""

    version: Version
    inclusive: bool
    reason: str = ""


def _tighter_lower(a: Optional[Bound], b: Optional[Bound]) -> Optional[Bound]:
    if a is None or b is None:
        return a or b
    if a.version != b.version:
        return a if a.version > b.version else b
    return a if not a.inclusive or b.inclusive else b


def _tighter_upper(a: Optional[Bound], b: Optional[Bound]) -> Optional[Bound]:
    if a is None or b is None:
        return a or b
    if a.version != b.version:
        return a if a.version < b.version else b
    return a if not a.inclusive or b.inclusive else b


def _looser_lower(a: Optional[Bound], b: Optional[Bound]) -> Optional[Bound]:
    if a is None or b is None:
        return None
    return b if _tighter_lower(a, b) is a else a


def _looser_upper(a: Optional[Bound], b: Optional[Bound]) -> Optional[Bound]:
    if a is None or b is None:
        return None
    return b if _tighter_upper(a, b) is a else a


def _version(text: str) -> Version:
    return Version(text)


@dataclass(frozen=True)
class VersionRange:
    """``lower <= v <= upper`` (each end open or closed; None = unbounded). ``declared``
    says whether anything stated a bound at all: an undeclared range is "any version"."""

    lower: Optional[Bound] = None
    upper: Optional[Bound] = None
    declared: bool = False
    reasons: Tuple[str, ...] = field(default=(), compare=False)
    """Every statement that went into the range, bounds or not (``torch`` with no version)."""

    # ------------------------------------------------------------------ questions
    def may_be_below(self, version: str) -> bool:
        """Some version in the range is older than ``version``."""
        return self.lower is None or self.lower.version < _version(version)

    def may_be_at_least(self, version: str) -> bool:
        """Some version in the range is ``version`` or newer."""
        if self.upper is None:
            return True
        limit = _version(version)
        return self.upper.version > limit or (self.upper.version == limit and self.upper.inclusive)

    @property
    def empty(self) -> bool:
        if self.lower is None or self.upper is None:
            return False
        if self.lower.version != self.upper.version:
            return self.lower.version > self.upper.version
        return not (self.lower.inclusive and self.upper.inclusive)

    def intersect(self, other: "VersionRange") -> "VersionRange":
        return VersionRange(
            _tighter_lower(self.lower, other.lower),
            _tighter_upper(self.upper, other.upper),
            self.declared or other.declared,
            _merge(self.reasons, other.reasons),
        )

    def hull(self, other: "VersionRange") -> "VersionRange":
        """The smallest range holding both (a module that may run under either package)."""
        return VersionRange(
            _looser_lower(self.lower, other.lower),
            _looser_upper(self.upper, other.upper),
            self.declared and other.declared,
            _merge(self.reasons, other.reasons),
        )

    def overlaps(self, other: "VersionRange") -> bool:
        """Some version lies in both ranges."""
        return not self.intersect(other).empty

    def within(self, other: "VersionRange") -> bool:
        """Every version of this range lies in ``other``."""
        low = other.lower is None or (
            self.lower is not None and _tighter_lower(self.lower, other.lower) is self.lower
        )
        high = other.upper is None or (
            self.upper is not None and _tighter_upper(self.upper, other.upper) is self.upper
        )
        return low and high

    # ------------------------------------------------------------------ text
    def describe(self) -> str:
        if not self.declared:
            return "any version (none declared)"
        if self.empty:
            return "no version (contradictory declarations)"
        if self.lower is not None and self.upper is not None and self.lower.version == self.upper.version:
            return f"=={self.lower.version}"
        parts = []
        if self.lower is not None:
            parts.append((">=" if self.lower.inclusive else ">") + str(self.lower.version))
        if self.upper is not None:
            parts.append(("<=" if self.upper.inclusive else "<") + str(self.upper.version))
        return ",".join(parts) or "any version"

    @property
    def source(self) -> str:
        return ", ".join(self.reasons)


def _merge(first: Tuple[str, ...], second: Tuple[str, ...]) -> Tuple[str, ...]:
    return first + tuple(reason for reason in second if reason not in first)


ANY = VersionRange()


def _next_release(release: Tuple[int, ...]) -> Version:
    """The first version after every release that starts with ``release``: 1.8 -> 1.9.dev0."""
    bumped = release[:-1] + (release[-1] + 1,)
    return Version(".".join(map(str, bumped)) + ".dev0")


def _public(version: Version) -> Version:
    return Version(version.public)


def range_of_specifier(specifier: Specifier, reason: str = "") -> VersionRange:
    """The interval one PEP 440 clause allows."""
    operator, text = specifier.operator, specifier.version
    if text.endswith(".*"):
        release = tuple(int(part) for part in text[:-2].split(".") if part.isdigit())
        if operator == "!=" or not release:
            return VersionRange(declared=True, reasons=(reason,) if reason else ())
        start = Version(".".join(map(str, release)))
        return VersionRange(Bound(start, True, reason), Bound(_next_release(release), False, reason), True, _r(reason))
    version = _public(Version(text))
    if operator in ("==", "==="):
        return VersionRange(Bound(version, True, reason), Bound(version, True, reason), True, _r(reason))
    if operator == ">=":
        return VersionRange(lower=Bound(version, True, reason), declared=True, reasons=_r(reason))
    if operator == ">":
        return VersionRange(lower=Bound(version, False, reason), declared=True, reasons=_r(reason))
    if operator == "<=":
        return VersionRange(upper=Bound(version, True, reason), declared=True, reasons=_r(reason))
    if operator == "<":
        return VersionRange(upper=Bound(version, False, reason), declared=True, reasons=_r(reason))
    if operator == "~=":
        release = version.release
        upper = _next_release(release[:-1]) if len(release) > 1 else None
        return VersionRange(
            Bound(version, True, reason), Bound(upper, False, reason) if upper else None, True, _r(reason)
        )
    return VersionRange(declared=True, reasons=_r(reason))  # != narrows nothing an interval can say


def _r(reason: str) -> Tuple[str, ...]:
    return (reason,) if reason else ()


def range_of(specifiers: "SpecifierSet | str", reason: str = "") -> VersionRange:
    """The range a specifier set allows; ``""`` (no version) is declared but unbounded."""
    if isinstance(specifiers, str):
        specifiers = SpecifierSet(specifiers)
    result = VersionRange(declared=True, reasons=_r(reason))
    for specifier in specifiers:
        result = result.intersect(range_of_specifier(specifier, reason))
    return result


def range_from_specifiers(text: str, source: str = "") -> VersionRange:
    """A range from PEP 440 specifiers (``>=1.8,<2``) or a bare version (``1.8``: any 1.8.x).
    Invalid text raises ``ValueError``."""
    text = text.strip()
    if text and text[0].isdigit():
        text = f"=={text}" if text.endswith("*") else f"=={text}.*"
    try:
        return range_of(SpecifierSet(text), source)
    except (InvalidSpecifier, InvalidVersion) as error:
        raise ValueError(str(error)) from None


def between(lower: str, upper: str) -> VersionRange:
    """``lower <= v < upper``: a fixed span such as "Python 3.13"."""
    return range_of(f">={lower},<{upper}")
