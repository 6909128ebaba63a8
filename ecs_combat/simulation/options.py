"""The options of a run as the library names them in its messages: what a Python caller gave
(:class:`~ecs_combat.simulation.distribute.Simulation`'s arguments), never a command-line
flag (the command line says its own: ecs_combat/cli/flag_words.py)."""

from __future__ import annotations

#: Where a run's output goes: a results file or a checkpoints directory.
OUTPUT = "output path"
#: The per-battle (or per-race) results file, CSV or Parquet.
RESULTS_FILE = "results file"
#: The directory of a run's checkpoints.
CHECKPOINTS = "checkpoints directory"
#: Continuing the run whose checkpoints are in the directory.
RESUME = "resume"
#: The address of the Dask scheduler running the tasks.
SCHEDULER = "scheduler"
#: Battles per chunk.
CHUNK_SIZE = "chunk size"
#: Where the chart of a run (the heatmap, or the best and worst cards) is written.
PLOT = "chart file"
