"""YAML edits (generator/rewrite.py) and the JSON Schemas (generator/schema.py): the cases mutation
testing showed no other test pins."""
