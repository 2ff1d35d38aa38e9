#!/usr/bin/env bash
# Run B: Triton GEMM tile-config corpus. From the repo root on the GPU machine:
#   RES=/tmp/res/val OUT=/some/dir bash tests/validation/h200/run_triton.sh [budget_s]
# Writes triton_gemm.csv and triton_gemm_skips.csv into $RES (default: this folder) and
# tars $RES into $OUT/val.tgz at the end (if OUT is set).
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RES="${RES:-$HERE}"
mkdir -p "$RES"
export PYTHONUNBUFFERED=1
python3 "$HERE/triton_gemm_sweep.py" --out "$RES" --budget-s "${1:-270}" || echo "sweep failed rc=$?"
if [ -n "${OUT:-}" ]; then tar czf "$OUT/val.tgz" -C "$RES" .; fi
