"""The adjoint rule set (paper 5.4): every adjoint rule module registers into ADJOINT."""
from ...engine.rules import RULE_SETS, RuleSet
from .. import tangent  # noqa: F401  (the tangent rules are listed first: the adjoint builds on them)

ADJOINT = RuleSet("Adjoint differentiation (paper 5.4)")
RULE_SETS.append(ADJOINT)
