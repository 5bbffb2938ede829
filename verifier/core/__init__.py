"""Values only: errors, integers and symbols, int tuples, layouts, scaled-basis codomain values, swizzles and
composed layouts, and the obligation record every operation writes to. Imports nothing else of the package.
"""
