"""The ``Claim`` type, re-exported from ``core.claim`` (where it lives so that a contract can sit beside its
algorithm in ``algebra``)."""

from __future__ import annotations

from verifier.core.claim import _I, _J, WITNESSES, Claim, _claim, _fact, _same_size

__all__ = ["WITNESSES", "Claim", "_I", "_J", "_claim", "_fact", "_same_size"]
