"""Deciding problems: the domain check, verification of operations, property checks, guard search and the
verdicts they return. Imports the layers below.
"""
