"""Module facts: one libcst pass per module, recorded as plain data.

The collector (and with it libcst) is imported only when a file must actually be parsed,
so a run served from the cache never pays for importing the parser.
"""

from seedlint.facts.model import ModuleFacts

__all__ = ["ModuleFacts"]
