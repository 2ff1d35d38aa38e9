#!/usr/bin/env bash
# ncu of ncu_skinny.py's cases (skinny-N vs skinny-M GEMMs, same tile configs transposed).
# Run from the repo root on the H200:  RES=DIR bash tests/validation/h200/run_ncu_skinny.sh
# Writes DIR/ncu_skinny_facts.csv (ncu --page raw CSV, one row per case in CASE order) and
# DIR/ncu_skinny_cases.txt.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RES="${RES:-$HERE}"
mkdir -p "$RES"
NCU="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
METRICS="gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,\
lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,\
smsp__inst_executed_op_ldgsts.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_writes_pipe_lsu_mem_shared.sum,\
l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__m_l1tex2xbar_req.sum,\
smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct,\
smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct,\
smsp__warp_issue_stalled_wait_per_warp_active.pct,smsp__issue_active.avg.pct_of_peak_sustained_active,\
lts__average_gcomp_input_sector_success_rate.pct,lts__t_sectors_srcunit_tex_lookup_hit.sum,\
lts__t_sectors_srcunit_tex_lookup_miss.sum"
python3 "$HERE/ncu_skinny.py" > /dev/null 2>&1  # compile outside ncu
"$NCU" --profile-from-start off --clock-control none --metrics "$METRICS" --csv --page raw \
  python3 "$HERE/ncu_skinny.py" > "$RES/ncu_skinny_raw.txt" 2>&1
grep '^CASE' "$RES/ncu_skinny_raw.txt" > "$RES/ncu_skinny_cases.txt"
grep -v '^CASE\|^==' "$RES/ncu_skinny_raw.txt" > "$RES/ncu_skinny_facts.csv"
tail -5 "$RES/ncu_skinny_raw.txt"
