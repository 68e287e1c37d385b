"""Module facts: one libcst pass per module, recorded as plain data."""

from seedlint.facts.collector import collect_facts
from seedlint.facts.model import ModuleFacts

__all__ = ["collect_facts", "ModuleFacts"]
