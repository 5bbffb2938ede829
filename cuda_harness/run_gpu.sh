#!/usr/bin/env bash
# All GPU work of cuda_harness in one command, for a machine with a CUDA GPU, CuPy, nvcc, g++ and the Python
# packages of this project (z3-solver, nvidia-cutlass==4.2.0.0). Results go to $OUT (default ./gpu-results):
#   probe.json     the machine (GPU, driver, CUDA, CuPy) and the compile method that took the CuTe headers
#   pytest.log     the GPU tests (pytest -m gpu) and the host-mode tests
#   hardware.json  python -m cuda_harness.gpu_run: both corpora, the GPU sweep, throughput (docs/hardware.md)
# Usage: OUT=dir bash cuda_harness/run_gpu.sh [--verdicts verdicts.json]
set -o pipefail
OUT=${OUT:-gpu-results}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
nvidia-smi 2>&1 | tee "$OUT/nvidia-smi.txt" | head -12
python3 -c "import json; from cuda_harness.probe import environment, gpu_available; \
print(json.dumps({'gpu_available': gpu_available(), **environment()}))" | tee "$OUT/probe.json"
python3 -m pytest -q -p no:cacheprovider tests/gpu/test_cuda_harness_gpu.py tests/gpu/test_cuda_harness.py 2>&1 \
  | tee "$OUT/pytest.log" | tail -15
python3 -m cuda_harness.gpu_run --out "$OUT/hardware.json" "$@" 2>&1 | tee "$OUT/gpu_run.log"
