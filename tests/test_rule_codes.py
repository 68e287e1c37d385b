"""The rule codes the command line validates against, without importing the rules, are
the rules' own codes."""

from seedlint.rule_codes import RULE_CODES
from seedlint.rules import RULES


def test_the_static_codes_are_the_rules_codes():
    assert RULE_CODES == tuple(rule.code for rule in RULES)
