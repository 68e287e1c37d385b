"""Versions a README states in prose rather than in an install command: a requirements list
(``* pytorch 1.8.0``, ``- PyTorch >= 0.4.1``, ``- Python 3``), or a sentence such as "tested
with Python 3.5, PyTorch 0.4.0". Each such line is one environment the authors ran the
project in.

Only packages whose version changes a verdict are read (torch, Python, torchvision,
Lightning, NumPy and the augmentation libraries), and only under a heading about requirements
or installation, or in a sentence that says the project was tested, developed or runs with
them; not in a section about one platform (Colab, Docker, Windows, ...), nor in a line that
says a version does not work. Code blocks are install commands, read elsewhere, except under
a requirements heading, where a block may list the versions (``Python >= 3.5.5, PyTorch ==
0.3.1``); the install commands in it are still left to the command reader."""

from __future__ import annotations

import re
from typing import Iterator, List, Optional, Tuple

from seedlint.versions.readme_lines import readme_lines

_STATED_PACKAGES: Tuple[Tuple[str, str], ...] = (
    (r"py[-_ ]?torch[-_ ]lightning", "pytorch-lightning"),
    (r"torchvision", "torchvision"),
    (r"py[-_ ]?torch(?![-_ ]?(?:lightning|geometric|3d|cluster|scatter|sparse|metrics|video|vision))", "torch"),
    (r"torch(?![-_.]?[a-z0-9])", "torch"),
    (r"python(?![-_]?[a-z])", "python"),
    (r"numpy", "numpy"),
    (r"albumentations", "albumentations"),
    (r"monai", "monai"),
    (r"timm", "timm"),
    (r"imgaug", "imgaug"),
)
_VERSION = (
    r"\s*(?:(?:install(?:ation)?\s+)?version\s*|v(?=\d))?[:=]?\s*\(?\s*(?P<op>==|>=|<=|~=|≥|>|<|=)?\s*v?(?P<version>\d+(?:\.\d+){0,2})(?P<wild>\.x|\.\*)?"
    r"(?P<later>\+|\s*\(?\s*(?:or|and) (?:higher|later|newer|above|greater)\b)?"
)
_STATEMENT = re.compile(
    r"(?<![\w./-])(?:" + "|".join(f"(?P<p{i}>{pattern})" for i, (pattern, _) in enumerate(_STATED_PACKAGES)) + r")\b" + _VERSION,
    re.IGNORECASE,
)
_SECTION = re.compile(
    r"requirement|dependenc|environment|prerequisite|install|set ?up|get(?:ting)? started|quick ?start|software|tested", re.IGNORECASE
)
_PLATFORM_SECTION = re.compile(r"colab|kaggle|docker|windows|mac\s?os|\bmac\b|apple|jetson|rocm|sagemaker|demo|inference only", re.IGNORECASE)
_SENTENCE = re.compile(
    r"\b(?:tested (?:with|on|under|using)|developed (?:with|on|under|using)|requires?|required|compatible with|works with|runs? (?:with|on)|"
    r"implemented (?:in|with|using)|written in|built (?:with|on)|based on|we use[ds]?|trained (?:with|using))\b",
    re.IGNORECASE,
)
_COMMAND = re.compile(r"^(?:[$>%!]\s*)?(?:sudo\s+)?(?:pip3?|conda|mamba|python3?\s+-m\s+pip|uv\s+pip|poetry)\s")
_NEGATION = re.compile(
    r"\b(?:incompatible|not (?:compatible|supported|work)|unsupported|does ?n[o']t|do ?n[o']t|won't|cannot|can't|conflicts?|mismatch|"
    r"deprecated|broken|fails?|error)\b",
    re.IGNORECASE,
)
_MORE_RELEASES = re.compile(r"\s*(?:,|/|\band\b|\bor\b)\s*(?:,\s*)?v?(\d+\.\d+(?:\.\d+)?)(?!\d|\.\d)")
"""Further releases listed right after a stated one (``and 3.8``, ``, 1.9 or 1.10``)."""
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def stated_requirements(text: str) -> Iterator[Tuple[int, List[Tuple[str, str]]]]:
    """Each prose line that states versions, with (package, PEP 440 specifier) pairs."""
    for number, line, headings, fenced in readme_lines(text):
        if any(_PLATFORM_SECTION.search(heading) for heading in headings):
            continue
        if fenced and not (headings and _SECTION.search(headings[-1])):
            continue  # code, not a statement; a code block under "Requirements" lists them
        raw = line.strip()
        plain = _LINK.sub(r"\1", raw).replace("**", "").replace("`", "").replace("__", "")
        if _COMMAND.match(plain):
            continue  # an install command, read as one
        if _NEGATION.search(plain):
            continue  # "Colab comes with torchaudio 2.8, which is incompatible with torch 2.6.0"
        if not ((headings and _SECTION.search(headings[-1])) or _SENTENCE.search(plain)):
            continue
        found = []
        for match in _STATEMENT.finditer(plain):
            first = _statement(match)
            if first is None:
                continue
            found.append(first)
            if first[1].startswith("=="):  # "Python 3.7 and 3.8", "PyTorch 1.8, 1.9 or 1.10"
                more = _MORE_RELEASES.match(plain, match.end())
                while more is not None:
                    release = more.group(1)
                    found.append((first[0], f"=={release}.*" if release.count(".") == 1 else f"=={release}"))
                    more = _MORE_RELEASES.match(plain, more.end())
        if found:
            yield number, found


def _statement(match: "re.Match[str]") -> Optional[Tuple[str, str]]:
    package = next(name for i, (_, name) in enumerate(_STATED_PACKAGES) if match.group(f"p{i}"))
    version = match.group("version")
    if package != "python" and "." not in version and match.group("wild") is None:
        return None  # "PyTorch 2 models", "torch 1" read as a count more often than a release
    if package == "python" and (not version.startswith(("2.", "3.")) or match.group("wild") is not None):
        return None  # "Python 3" says too little to narrow anything
    if package == "torch" and not _a_torch_series(version):
        return None  # "torch 1.81": a typo for a release, not one to bound anything by
    op = {"≥": ">=", "=": "=="}.get(match.group("op") or "", match.group("op") or "")
    if match.group("later"):
        op = ">="
    if op in ("", "=="):
        parts = version.count(".") + 1
        return package, f"=={version}" if parts == 3 and match.group("wild") is None else f"=={version}.*"
    return package, f"{op}{version}"


TORCH_SERIES = {0: 4, 1: 13}
"""The last minor release of each finished torch series (0.4.1 and 1.13.1, the PyTorch
release notes); series 2 is still being released."""


def _a_torch_series(version: str) -> bool:
    """``version`` can name a torch release: its major and minor exist."""
    parts = version.split(".")
    major, minor = int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
    if major in TORCH_SERIES:
        return minor <= TORCH_SERIES[major]
    return major == 2
