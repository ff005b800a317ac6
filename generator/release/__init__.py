"""Moving a map to a new release: bump, and what an edition says."""
