#!/usr/bin/env bash
# Run D (follow-up): re-time the whole Triton corpus on a fresh machine (run-to-run noise) and profile the
# L2 hit rate of every corpus config on four shapes with ncu (STEPS="repeat sweep", the
# default); STEPS=corpus profiles the other 16 corpus shapes. From the repo root:
#   RES=/tmp/res/vald OUT=/some/dir [STEPS=...] bash tests/validation/h200/run_extra.sh
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RES="${RES:-$HERE}"
mkdir -p "$RES"
export PYTHONUNBUFFERED=1
snap() { if [ -n "${OUT:-}" ]; then tar czf "$OUT/vald.tgz.tmp" -C "$RES" . && mv "$OUT/vald.tgz.tmp" "$OUT/vald.tgz"; fi; }
STEPS=" ${STEPS:-repeat sweep} "   # also: corpus (ncu over the other 16 corpus shapes)
want() { case "$STEPS" in *" $1 "*) return 0;; esac; return 1; }
NCU="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)"
export NCU
if want repeat; then
  python3 "$HERE/triton_gemm_sweep.py" --out "$RES" --name triton_gemm_repeat \
    --budget-s "${REPEAT_BUDGET_S:-200}" || echo "repeat failed rc=$?"
  snap
fi
for set in sweep corpus; do
  if want $set; then
    python3 "$HERE/ncu_l2.py" --set $set --out "$RES" --timeout "${NCU_TIMEOUT:-150}" \
      --budget-s "${NCU_BUDGET_S:-300}" || echo "ncu $set failed rc=$?"
    snap
  fi
done
