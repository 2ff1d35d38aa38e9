#!/usr/bin/env bash
# Attention / norms corpora (issue 6). From the repo root on the GPU machine:
#   RES=DIR bash tests/validation/h200/run_attention.sh
# Writes attention_sdpa.csv (+_skips), attention_triton.csv (+_skips) and norms.csv into
# $RES (default: this folder). Each script keeps its own time budget (seconds, overridable:
# SDPA_S, TRITON_S, NORMS_S) and is also hard-capped by `timeout`, so one failing part
# leaves the others their time. About 6-7 minutes in all with the defaults.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RES="${RES:-$HERE}"
mkdir -p "$RES"
export PYTHONUNBUFFERED=1
SDPA_S="${SDPA_S:-140}"
TRITON_S="${TRITON_S:-180}"
NORMS_S="${NORMS_S:-40}"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit \
  --format=csv || true
python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__, "cudnn", torch.backends.cudnn.version())' || true
t0=$(date +%s)
timeout $((SDPA_S + 60)) python3 "$HERE/attention_sdpa.py" --out "$RES" --budget-s "$SDPA_S" \
  || echo "attention_sdpa.py failed rc=$?"
echo "elapsed $(( $(date +%s) - t0 )) s"
timeout $((TRITON_S + 60)) python3 "$HERE/attention_triton.py" --out "$RES" --budget-s "$TRITON_S" \
  || echo "attention_triton.py failed rc=$?"
echo "elapsed $(( $(date +%s) - t0 )) s"
timeout $((NORMS_S + 40)) python3 "$HERE/norms.py" --out "$RES" --budget-s "$NORMS_S" \
  || echo "norms.py failed rc=$?"
echo "elapsed $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit \
  --format=csv || true
