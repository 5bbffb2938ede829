"""Engine soundness: verdicts, counterexamples, guards and proofs, checked by enumeration and against CuTe."""
