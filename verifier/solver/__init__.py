"""The only modules that import z3: integer intervals, simplification, the Z3 and bit-vector encodings, the
budgets in Z3 resource units and the one ``solve`` entry. Imports ``core``.
"""
