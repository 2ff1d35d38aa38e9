#!/usr/bin/env bash
# Run C: cuBLAS corpus (cublas_sweep.py -> cublas_gemm.csv) and ncu L2 hit rates of Triton
# GEMMs (ncu_l2.py -> l2_hit.csv). From the repo root on the GPU machine:
#   RES=/tmp/res/valc OUT=/some/dir bash tests/validation/h200/run_cublas_ncu.sh
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RES="${RES:-$HERE}"
mkdir -p "$RES"
export PYTHONUNBUFFERED=1
snap() { if [ -n "${OUT:-}" ]; then tar czf "$OUT/valc.tgz.tmp" -C "$RES" . && mv "$OUT/valc.tgz.tmp" "$OUT/valc.tgz"; fi; }
NCU="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1 || ls /usr/local/cuda/bin/ncu 2>/dev/null)"
export NCU
echo "ncu: $NCU"; "$NCU" --version | tail -1
python3 "$HERE/ncu_l2.py" --out "$RES" --timeout "${NCU_TIMEOUT:-240}" || echo "ncu_l2 failed rc=$?"
snap
python3 "$HERE/cublas_sweep.py" --out "$RES" --budget-s "${CUBLAS_BUDGET_S:-110}" || echo "cublas_sweep failed rc=$?"
snap
