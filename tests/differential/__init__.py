"""Differential tests: our algebra against compiled CuTe 4.2 (g++ against its headers) and the CuTe DSL."""
