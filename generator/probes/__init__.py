"""Running pi's own code, in a sandbox, to check what entries claim."""
