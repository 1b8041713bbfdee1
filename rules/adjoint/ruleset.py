"""The adjoint rule set (paper 5.4): every adjoint rule module registers into ADJOINT."""
from ...engine.rules import RULE_SETS, RuleSet

ADJOINT = RuleSet("Adjoint differentiation (paper 5.4)")
RULE_SETS.append(ADJOINT)
