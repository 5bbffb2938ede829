"""Front ends: the command line, spec files, the pytest plugin, the DSL tracer, pictures and strategies."""
