"""Reading npm extensions' code for the levers they use."""
