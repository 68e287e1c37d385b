"""The codes of every rule, without importing the rules: a run whose result is cached, or
that finds nothing to check, validates ``select``/``ignore`` against these and never loads
the rules or the analysis (tests/test_rule_codes.py keeps this list equal to the rules')."""

RULE_CODES = (
    "SDL001", "SDL002", "SDL003", "SDL004", "SDL005", "SDL006", "SDL007", "SDL008", "SDL009", "SDL010", "SDL011", "SDL012",
    "SDL101", "SDL102", "SDL103", "SDL104", "SDL105", "SDL106", "SDL107", "SDL110",
)
