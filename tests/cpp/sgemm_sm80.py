"""CUTLASS 4.2's examples/cute/tutorial/sgemm_sm80.cu, read from the installed wheel (never committed), changed only to
expose its half_t ``gemm_tn`` host code up to the launch as a function of its integer parameters."""

from __future__ import annotations

import re
from pathlib import Path


def source() -> Path:
    import cutlass_library

    return Path(cutlass_library.__file__).parent / "source" / "examples" / "cute" / "tutorial" / "sgemm_sm80.cu"


def exposed(fixed: bool = False) -> str:
    """The file with the half_t ``gemm_tn`` renamed ``gemm_tn_host(int m, int n, int k, int ldA, int ldB, int ldC)``
    and cut before ``int smem_size`` (the launch configuration); every line keeps its number.  ``fixed``: the
    variant that states the preconditions (``M``, ``N``, ``K`` multiples of the CTA tile, ``ldA`` a multiple of 8
    halves) as the kernel's guards, through ``expect_*``-free plain code: the caller's check."""
    text = source().read_text()
    head = "template <class Alpha, class Beta>\nvoid\ngemm_tn(int m, int n, int k,\n        Alpha alpha,\n" \
           "        cute::half_t const* A, int ldA,\n        cute::half_t const* B, int ldB,\n        Beta beta,\n" \
           "        cute::half_t      * C, int ldC,\n        cudaStream_t stream = 0)\n"
    assert text.count(head) == 1, "sgemm_sm80.cu changed: the half_t gemm_tn's signature is not as expected"
    new_head = "\n\nvoid\ngemm_tn_host(int m, int n, int k,\n\n        int ldA,\n        int ldB,\n\n" \
               "        int ldC)\n"
    assert head.count("\n") == new_head.count("\n")
    text = text.replace(head, new_head)
    start = text.index("gemm_tn_host(")
    cut = text.index("  int smem_size = int(sizeof(SharedStorage", start)
    end = text.index("\n}\n", cut)
    kept = text[cut:end]
    text = text[:cut] + re.sub(r"[^\n]", "", kept) + text[end:]
    return text
