"""The cases cuda_harness runs in host mode (tests/gpu/test_cuda_harness.py) and on a GPU
(tests/gpu/test_cuda_harness_gpu.py): a spread of the conformance corpus and a sample of the parametric corpus."""

from __future__ import annotations

import json

from cuda_harness.harness import Case, evaluate
from verifier.oracle.corpora import CUTLASS_UNIT_CORPUS, PARAMETRIC_CORPUS, operands
from verifier.oracle.sweep import grid

UNIT = json.loads(CUTLASS_UNIT_CORPUS.read_text())
CORPUS = {e["id"]: e for e in json.loads(PARAMETRIC_CORPUS.read_text())}

# A spread of the conformance corpus: every operation, the swizzled and scaled-basis cases, rejections and UB.
PICK = [c for i, c in enumerate(UNIT) if i % 19 == 0 or any("Sw<" in a or "@" in a for a in c["args"])
        or c["args"] == ["(_4):(_-1)"]]  # left_inverse of it has the static size _-4
VARIANTS = ("original", "dynamic", "static")


def conformance(host: bool):
    cases = [Case(f"{c['file']}:{c['line']} [{v}]", c["op"], tuple(operands(c["args"], v)))
             for c in PICK for v in VARIANTS]
    return cases, evaluate(cases, host=host)


SWEEP_IDS = ["cmp-seed-colmajor-rowmajor", "gemm-zdiv-MN-32x16", "prod-flat-bymode", "prod-raked-dyn-block",
             "tts-smem-atom-8x8", "cpl-rank1-dyn-stride", "up2-rowmajor-MK", "recast-16-32-seed004",
             "prod-logical-size0-complement", "rinv-static-strides"]


def small_grid(entry: dict, span: int = 9) -> list[dict[str, int]]:
    rng = {k: (v[0], min(v[1], v[0] + span)) for k, v in entry["range"].items()}
    from verifier.notation.cpp import parse_relation

    rels = [parse_relation(r) for r in entry.get("assume", [])]
    return [env for env in grid(rng) if all(r.evaluate(env) for r in rels)]
