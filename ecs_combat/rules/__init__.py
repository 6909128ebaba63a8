"""The rules core: the damage-step pipeline, division of damage, legality of declarations,
and the outcome of a combat."""
