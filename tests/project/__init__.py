"""The repository's own rules: architecture and layering, registry conformance, CI, toolchain, benchmarks."""
