"""Built-in rules, one module per bundle, registered in :mod:`.registry`."""
