"""Each operation's postconditions, written once as claims over its result; their concrete status is the same
claim evaluated on concrete values. Imports ``core`` and ``algebra``.
"""
