"""Times ``cute-verify cpp`` on the host code of CUTLASS 4.2's examples/cute/tutorial/sgemm_sm80.cu (the half_t
``gemm_tn`` host code and its kernel's tiling, exposed as tests/cpp/sgemm_sm80.py does, read from the installed
wheel) with the block and thread indices symbolic over their whole range (test_sgemm_sm80's ranges): the compile
cold (an empty program cache) and cached, the path exploration and the verdicts.

    python bench/bench_cpp.py          # prints one JSON object
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    from tests.cpp import sgemm_sm80
    from tests.cpp.test_sgemm_sm80 import ASSUME, RANGES
    from verifier.oracle import cpp

    ranges = RANGES
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "sgemm_sm80.cu"
        src.write_text(sgemm_sm80.exposed())
        os.environ["CUTE_VERIFY_CACHE"] = str(Path(tmp) / "cache")
        target = f"{src}::gemm_tn_host"
        t0 = time.perf_counter()
        cold = cpp.verify_cpp(target, ranges, ASSUME, strict=True)
        t1 = time.perf_counter()
        warm = cpp.verify_cpp(target, ranges, ASSUME, strict=True)
        t2 = time.perf_counter()
    print(json.dumps({
        "function": "sgemm_sm80.cu::gemm_tn host code and the kernel's tiling (test_sgemm_sm80's ranges)",
        "ranges": " ".join(f"{k}={lo}..{hi}" for k, (lo, hi) in ranges.items()),
        "cores": os.cpu_count(),
        "cold": {"total_s": round(t1 - t0, 2), **{k: round(v, 2) for k, v in cold.timings.items()}},
        "cached": {"total_s": round(t2 - t1, 2), "compile_cached": warm.cached,
                   **{k: round(v, 2) for k, v in warm.timings.items()}},
        "paths": warm.paths, "runs": warm.runs, "findings": len(warm.findings),
        "verdicts": [f"{f.line}: {f.kind} {f.verdict.verdict}" for f in warm.findings],
    }, indent=2))


if __name__ == "__main__":
    main()
