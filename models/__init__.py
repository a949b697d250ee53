"""Progress models: one module each, registered in the `progress.models`
entry-point group (see pyproject.toml). `base` defines the contract."""
