"""The ``cute-verify`` command: one module per command. ``main`` dispatches; ``gpu`` is registered only when the
``cuda_harness`` package imports.
"""
