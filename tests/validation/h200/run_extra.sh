#!/usr/bin/env bash
# Run D (follow-up): re-time the whole Triton corpus on a fresh machine (run-to-run noise) and profile the
# L2 hit rate of every corpus config on four shapes with ncu. From the repo root:
#   RES=/tmp/res/vald OUT=/some/dir bash tests/validation/h200/run_extra.sh
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RES="${RES:-$HERE}"
mkdir -p "$RES"
export PYTHONUNBUFFERED=1
snap() { if [ -n "${OUT:-}" ]; then tar czf "$OUT/vald.tgz.tmp" -C "$RES" . && mv "$OUT/vald.tgz.tmp" "$OUT/vald.tgz"; fi; }
python3 "$HERE/triton_gemm_sweep.py" --out "$RES" --name triton_gemm_repeat \
  --budget-s "${REPEAT_BUDGET_S:-200}" || echo "repeat failed rc=$?"
snap
NCU="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)"
export NCU
python3 "$HERE/ncu_l2.py" --set sweep --out "$RES" --timeout "${NCU_TIMEOUT:-150}" \
  --budget-s "${NCU_BUDGET_S:-300}" || echo "ncu sweep failed rc=$?"
snap
