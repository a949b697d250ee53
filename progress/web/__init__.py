"""`progress serve`: the browser front of the tool (playground, suites, a WebGPU runner)."""
