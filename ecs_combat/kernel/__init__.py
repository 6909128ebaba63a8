"""Compiled kernels (numba): the batched engine's combat, generated from the plugins' kernel
parts (:mod:`ecs_combat.plugin.kernels`) around the core's per-battle template.

Nothing here imports numba until a batch is resolved in a kernel: :func:`kernel_for` says
whether kernels are used (only with ``ECS_COMBAT_KERNELS=1`` while the kernel is not faster
than the numpy engine; without numba, one line says so and the numpy engine resolves every
batch).
"""
