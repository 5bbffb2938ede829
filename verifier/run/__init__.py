"""Front ends that run the engine: problems from CuTe notation, spec files, batches and their cache, the
theorems, safe files and Ctrl-C handling.
"""
