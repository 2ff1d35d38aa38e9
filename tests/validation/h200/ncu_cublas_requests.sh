#!/bin/bash
# How many sectors each of the SMs' L2 read requests carries in three cuBLAS calls (issue 3,
# docs/cache-model.md "A TMA box past the edge"): 128 x 28672 x 8192 (the 448 x 64 kernel the
# cache model reads 16-18 pp too few hits for), 1024^3 and 512 x 4096 x 14336, bf16
# torch.matmul, one cold launch each under ncu, with the launch's grid and cluster.
# Run on the H200 from the repository root: bash tests/validation/h200/ncu_cublas_requests.sh OUT_DIR
out=${1:-.}
cat > /tmp/ncu_cublas_requests_target.py <<'PY'
import torch
for (m, n, k) in [(128, 28672, 8192), (1024, 1024, 1024), (512, 4096, 14336)]:
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    torch.matmul(a, b)
    torch.cuda.synchronize()
PY
ncu --clock-control none --kernel-name regex:nvjet --csv --page raw --print-units base \
  --metrics lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_ltcfabric.sum,launch__cluster_dim_x,launch__cluster_dim_y,launch__grid_size \
  python3 /tmp/ncu_cublas_requests_target.py > "$out/ncu_cublas_requests_raw.txt" 2>&1
