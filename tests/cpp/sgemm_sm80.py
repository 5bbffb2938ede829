"""CUTLASS 4.2's examples/cute/tutorial/sgemm_sm80.cu, read from the installed wheel (never committed), changed only
to expose its host code and its kernel's partitioning code as functions of their integers: every line keeps its
number, so that findings name the lines of the original file.

* The half_t ``gemm_tn`` becomes ``gemm_tn_host(m, n, k, bx, by, tid, ldA, ldB, ldC)``: its pointers and scalars
  leave the signature, the launch configuration (``smem_size``, ``dim3``, ``cudaFuncSetAttribute``) is blanked and
  the launch ``kernel_fptr<<<...>>>(args)`` becomes the call ``gemm_device(args, bx, by, tid)`` (null pointers,
  ``alpha = 1``, ``beta = 0``).
* ``gemm_device`` becomes a host function with ``bx``, ``by``, ``tid`` for ``blockIdx.x``, ``blockIdx.y`` and
  ``threadIdx.x``, run up to its main loop (its tiles, partitions, fragments and the prologue's copies).
"""

from __future__ import annotations

import re
from pathlib import Path


def source() -> Path:
    import cutlass_library

    return Path(cutlass_library.__file__).parent / "source" / "examples" / "cute" / "tutorial" / "sgemm_sm80.cu"


def _replace_once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"sgemm_sm80.cu changed: {old!r} is not there once"
    assert old.count("\n") == new.count("\n")
    return text.replace(old, new)


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + re.sub(r"[^\n]", "", text[start:end]) + text[end:]


def exposed() -> str:
    text = source().read_text()
    text = _replace_once(
        text,
        "template <class Alpha, class Beta>\nvoid\ngemm_tn(int m, int n, int k,\n        Alpha alpha,\n"
        "        cute::half_t const* A, int ldA,\n        cute::half_t const* B, int ldB,\n        Beta beta,\n"
        "        cute::half_t      * C, int ldC,\n        cudaStream_t stream = 0)\n",
        "\nvoid\ngemm_tn_host(int m, int n, int k,\n        int bx, int by, int tid,\n        int ldA,\n"
        "        int ldB,\n\n        int ldC)\n\n")
    host = text.index("gemm_tn_host(")
    config = text.index("  int smem_size = int(sizeof(SharedStorage", host)
    launch = text.index("  kernel_fptr<<<dimGrid, dimBlock, smem_size, stream>>>", host)
    text = _blank(text, config, launch)
    text = _replace_once(
        text,
        "  kernel_fptr<<<dimGrid, dimBlock, smem_size, stream>>>\n      (prob_shape, cta_tiler,\n"
        "       A, dA, sA, copyA, s2r_atom_A,\n       B, dB, sB, copyB, s2r_atom_B,\n"
        "       C, dC, sC, mmaC,\n       alpha, beta);\n",
        "  gemm_device\n      (prob_shape, cta_tiler,\n"
        "       (cute::half_t const*)nullptr, dA, sA, copyA, s2r_atom_A,\n"
        "       (cute::half_t const*)nullptr, dB, sB, copyB, s2r_atom_B,\n"
        "       (cute::half_t*)nullptr, dC, sC, mmaC,\n       1.0f, 0.0f, bx, by, tid);\n")
    text = _replace_once(text, "__global__ static\n__launch_bounds__(decltype(size(TiledMma{}))::value)\n",
                         "static\n\n")
    text = _replace_once(text, "            Alpha alpha, Beta beta)\n{\n  using namespace cute;\n\n  // Preconditions",
                         "            Alpha alpha, Beta beta, int bx, int by, int tid)\n{\n  using namespace cute;\n\n"
                         "  // Preconditions")
    kernel = text.index("gemm_device(ProblemShape shape_MNK")
    end = text.index("\n}\n", kernel)
    body = text[kernel:end].replace("blockIdx.x", "bx").replace("blockIdx.y", "by").replace("threadIdx.x", "tid")
    text = text[:kernel] + body + text[end:]
    end = text.index("\n}\n", kernel)
    loop = text.index("#if 1\n\n  // Current pipe index in smem to read from", kernel)
    return _blank(text, loop, end + 1)
