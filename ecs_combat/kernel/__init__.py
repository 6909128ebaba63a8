"""Compiled kernels (numba): the batched engine's combat, generated from the plugins' kernel
parts (:mod:`ecs_combat.plugin.kernels`) around the core's per-battle template.

Nothing here imports numba until a batch is resolved in a kernel: :func:`.availability.
kernel_for` says whether kernels are used (by default: a simulate run of 1,000,000 battles
or more, once ``ecs-combat kernels build`` built the kernel; ``ECS_COMBAT_KERNELS=1``: always,
compiled first if need be; ``=0``: never; without numba, one line says so and the numpy
engine resolves every batch).
"""
