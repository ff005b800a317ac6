"""The map as data: its model, its schema, loading YAML and writing it back."""
