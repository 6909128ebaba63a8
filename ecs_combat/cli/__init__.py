"""The command line: the `ecs-combat` group and its commands, and what they print."""

from ecs_combat.cli.main import main

__all__ = ["main"]
