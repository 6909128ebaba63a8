"""The reference engine: one combat at a time, creatures as esper entities."""
