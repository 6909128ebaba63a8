"""Bulk simulations: SPEC files, drawing battles, running them in chunks, on worker
processes or a Dask cluster, with checkpoints, and what the `simulate` command prints."""
