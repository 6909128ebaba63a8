"""The Un-set and first-strike damage steps, shared by the plugins that add them.

Several plugins add the same step (first strike, double strike and triple strike all add
``first-strike``); one definition here keeps them in agreement. Orders: RULES.md section 2.
"""

from ecs_combat import DamageStep

FIRSTEST_STRIKE = DamageStep("firstest-strike", 10, rule="Throat Wolf rulings")
FIRST_STRIKE = DamageStep("first-strike", 20, rule="510.4")
LAST_STRIKE = DamageStep("last-strike", 40, rule="Extremely Slow Zombie rulings")
