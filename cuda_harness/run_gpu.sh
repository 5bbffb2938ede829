#!/usr/bin/env bash
# All GPU work of cuda_harness in one command, for a machine with a CUDA GPU, CuPy, nvcc, g++ and the Python
# packages of this project (z3-solver, nvidia-cutlass==4.2.0.0). Results go to $OUT (default ./gpu-results):
#   probe.json     the machine (GPU, driver, CUDA, CuPy) and the compile method that took the CuTe headers
#   pytest.log     the GPU tests (pytest -m gpu) and the host-mode tests
#   hardware.json  python -m cuda_harness.gpu_run: both corpora, the GPU sweep, throughput (docs/hardware.md)
#   throughput.json, throughput_ncu.log   cuda_harness/throughput.py: the sweep's checks against the integer bound
#   tiled_check.json   cuda_harness/tiled_device.py: CuTe's TiledMMA / TiledCopy partitions, one thread each
#   banks_compare.json cuda_harness/banks_device.py: shared-memory wavefronts (Nsight Compute) against the model
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
# The sweep's checks near the integer bound: both designs, numpy in the same run, Nsight Compute's integer count.
python3 -m cuda_harness.throughput prepare "$OUT/work.npz"
python3 cuda_harness/throughput.py run "$OUT/work.npz" --out "$OUT/throughput.json" --variants 16:0,32:0 \
  2>&1 | tee "$OUT/throughput.log"
ncu --clock-control none --csv --metrics smsp__sass_thread_inst_executed_op_integer_pred_on.sum,\
smsp__issue_active.avg.pct_of_peak_sustained_active -k regex:sweep \
  python3 cuda_harness/throughput.py ncu "$OUT/work.npz" lanes 16 16 0 > "$OUT/throughput_ncu.log" 2>&1
# CuTe's TiledMMA / TiledCopy partitions on the device against verifier.tiled (0 mismatches expected).
python3 -m cuda_harness.tiled_device emit "$OUT/tiled" && python3 -m cuda_harness.tiled_device build "$OUT/tiled" --gpu \
  && "$OUT/tiled/tiled_gpu" > "$OUT/tiled/out.txt" \
  && python3 -m cuda_harness.tiled_device check "$OUT/tiled" "$OUT/tiled/out.txt" > "$OUT/tiled_check.json"
# Bank conflicts: the hardware's wavefronts per instruction against verifier.banks.
python3 -m cuda_harness.banks_device emit "$OUT/patterns.json"
ncu --clock-control none --csv --log-file "$OUT/banks_ncu.csv" \
  --metrics "$(python3 -c 'from cuda_harness.banks_device import METRICS; print(",".join(METRICS))')" \
  -k regex:bank_ python3 cuda_harness/banks_device.py run "$OUT/patterns.json"
python3 -m cuda_harness.banks_device compare "$OUT/patterns.json" "$OUT/banks_ncu.csv" > "$OUT/banks_compare.json"
