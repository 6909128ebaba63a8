"""Scenarios: reading files, validating documents, keyword instances, the JSON Schema."""
