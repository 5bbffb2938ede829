"""Rendering: the one place verdicts become text, JSON, SARIF and JUnit; CuTe's text tables; pictures.
"""
