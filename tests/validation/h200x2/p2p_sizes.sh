#!/usr/bin/env bash
# p2p_sizes.py's three variants, each its own torchrun launch (NCCL reads its parameters once
# per process), plus NCCL's init and tuning log of the default launch. From the repo root on
# the 2-GPU machine:  RES=DIR bash tests/validation/h200x2/p2p_sizes.sh
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RES="${RES:-$HERE}"
mkdir -p "$RES"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
NGPU=$(nvidia-smi -L | wc -l)
{
  date -u
  nvidia-smi --query-gpu=index,name,driver_version --format=csv
  python3 -c 'import torch; print("torch", torch.__version__, "nccl", torch.cuda.nccl.version())'
} > "$RES/p2p_sizes_env.txt" 2>&1
t0=$(date +%s)
go() {
  timeout 150 torchrun --standalone --nproc_per_node="$NGPU" "$HERE/p2p_sizes.py" --out "$RES" --variant "$@" \
    || echo "p2p_sizes.py $* failed rc=$?"
  echo "variant $1 done at $(( $(date +%s) - t0 )) s"
}
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING,P2P NCCL_DEBUG_FILE="$RES/nccl.%p.log" go default
NCCL_P2P_LL_THRESHOLD=0 go simple
go k32
# keep rank 0's lines about channels, chunk sizes and tuning (the full log stays off the repo)
grep -E "^\S+:[0-9]+:[0-9]+ \[0\].*(channels|Chunksize|threadThresholds|Latency|Algorithm|Protocol|Max NThreads|(AllGather|ReduceScatter|AllReduce) +\\||Pattern|version)" \
  -h "$RES"/nccl.*.log | sed -E 's/^\S+ //' | awk '!seen[$0]++' | head -80 > "$RES/p2p_sizes_log.txt"
rm -f "$RES"/nccl.*.log
