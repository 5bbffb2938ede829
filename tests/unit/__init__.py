"""Unit tests of the model's values, notations and solver pieces: no compiled CuTe, no engine verdicts."""
