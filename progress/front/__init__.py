"""Front ends: input languages read into the core's Program (and the `# expect:` header every test file may carry)."""
