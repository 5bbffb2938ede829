"""pycute interop: ``from_pycute`` turns a ``pycute.Layout`` into a ``Layout`` (every leaf static, as pycute's
integers are compile-time values), ``to_pycute`` the reverse for a concrete layout.  pycute layouts are also
accepted wherever the API takes a layout (``apply``, ``verify``, ``check``)."""

from verifier.notation.interop import from_pycute, to_pycute

__all__ = ["from_pycute", "to_pycute"]
