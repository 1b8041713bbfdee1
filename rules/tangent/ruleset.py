"""The tangent rule set (paper 5.3): every tangent rule module registers into TANGENT."""
from ...engine.rules import RULE_SETS, RuleSet

TANGENT = RuleSet("Tangent differentiation (paper 5.3)")
RULE_SETS.append(TANGENT)
