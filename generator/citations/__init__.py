"""Resolving citations in the source, checking and recording them, and reporting."""
