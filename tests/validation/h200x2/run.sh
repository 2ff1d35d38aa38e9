#!/usr/bin/env bash
# Multi-GPU corpus (issue 8) on the H200s of one host. From the repo root on that machine:
#   RES=DIR bash tests/validation/h200x2/run.sh
# Writes env.txt, collectives.csv, p2p.csv, fused.csv, peer_copy.csv and, for all_reduce and
# all_gather per NCCL protocol (LL, LL128, Simple), rows with proto set into collectives.csv.
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0 and the others of the device README).
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RES="${RES:-$HERE}"
mkdir -p "$RES"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
NGPU=$(nvidia-smi -L | wc -l)
{
  date -u
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,clocks.mem,power.limit,driver_version --format=csv
  nvidia-smi topo -m
  nvidia-smi nvlink -s -i 0 | head -24
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__, "nccl", torch.cuda.nccl.version())'
} > "$RES/env.txt" 2>&1
cat "$RES/env.txt"
t0=$(date +%s)
run() { timeout "$1" torchrun --standalone --nproc_per_node="$NGPU" "$HERE/collectives.py" --out "$RES" "${@:2}" || echo "collectives.py $* failed rc=$?"; echo "elapsed $(( $(date +%s) - t0 )) s"; }
run 150 --phases coll,p2p
run 200 --phases fused
timeout 60 python3 "$HERE/peer_copy.py" --out "$RES" || echo "peer_copy failed"
for p in LL LL128 Simple; do
  NCCL_PROTO=$p run 90 --phases coll --colls all_reduce,all_gather --max-bytes $((1 << 30))
done
