"""Helpers shared by every test group (comparisons with compiled CuTe, generators, corpora); no tests here."""
