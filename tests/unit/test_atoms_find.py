"""``atoms.find`` parses only the atom it finds (issue 28): it must find what a search of every parsed atom finds."""

from __future__ import annotations

import pytest

from verifier.algebra.atoms import atoms, find


def test_find_is_the_first_parsed_atom_of_that_name() -> None:
    every = atoms()
    names = [a.name for a in every[::97]] + ["SM80_16x8x8_F16F16F16F16_TN", "UniversalCopy<uint128_t, uint128_t>"]
    for name in names:
        key = "".join(name.split())
        assert find(name) == next(a for a in every if "".join(a.name.split()) == key), name
    with pytest.raises(KeyError):
        find("SM80_no_such_atom")
