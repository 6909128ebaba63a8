"""The keyword plugins bundled with ecs-combat, each registered through the ``ecs_combat``
entry points exactly like a third-party plugin (see pyproject.toml)."""
