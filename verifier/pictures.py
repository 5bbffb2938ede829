"""Pictures of layouts, thread/value layouts and counterexamples: ``to_svg``, ``to_tikz`` (LaTeX) and ``to_png``
(needs the ``pictures`` extra), as ``cute-verify draw`` writes them."""

from verifier.present.pictures import to_png, to_svg, to_tikz

__all__ = ["to_png", "to_svg", "to_tikz"]
