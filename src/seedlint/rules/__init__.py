"""The rule registry: adding a rule is one module and one line here."""

from typing import Dict, Tuple

from seedlint.rules.base import Project, Rule
from seedlint.rules.sdl001_numpy_global_rng_in_workers import NumpyGlobalRngInWorkers

RULES: Tuple[Rule, ...] = (
    NumpyGlobalRngInWorkers(),
)
BY_CODE: Dict[str, Rule] = {rule.code: rule for rule in RULES}

__all__ = ["BY_CODE", "RULES", "Project", "Rule"]
