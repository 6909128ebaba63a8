"""The batched engine: many combats at once as numpy structure-of-arrays."""
