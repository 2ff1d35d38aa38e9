#!/usr/bin/env bash
# ncu facts of the compiled kernels behind norms.csv and triton_gemm.csv, plus the PTX
# facts of every Triton GEMM config. Run from the repo root on the H200:
#   RES=DIR [SETS="norms gemm spills extra stages staged softmaxw shortrows stridedew overflow aonly lane fp8 nt ranks unaligned carveout ptx"] bash tests/validation/h200/run_ncu_facts.sh
# Writes DIR/ncu_norms_facts.csv, DIR/ncu_gemm_facts.csv, DIR/ncu_spills_facts.csv (ncu --page
# raw CSV, one row per
# profiled kernel; the CASE lines of the *_cases.txt files give the order), and
# DIR/triton_ptx_facts.csv.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RES="${RES:-$HERE}"
mkdir -p "$RES"
NCU="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
WANT="launch__registers_per_thread launch__block_size launch__grid_size \
launch__occupancy_limit_registers launch__occupancy_limit_shared_mem launch__occupancy_limit_warps \
launch__occupancy_limit_blocks launch__occupancy_per_block_size launch__waves_per_multiprocessor \
launch__shared_mem_per_block_static launch__shared_mem_per_block_dynamic launch__shared_mem_config_size \
sm__warps_active.avg.pct_of_peak_sustained_active sm__maximum_warps_per_active_cycle_pct \
gpu__time_duration.sum dram__bytes_read.sum dram__bytes_write.sum lts__t_sector_hit_rate.pct \
lts__t_sectors_srcunit_tex_op_read.sum smsp__inst_executed.sum sm__cycles_elapsed.avg \
smsp__inst_executed_op_global_ld.sum smsp__inst_executed_op_shared_st.sum \
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum \
l1tex__data_pipe_lsu_wavefronts_mem_shared.sum \
sm__inst_executed_pipe_tensor_op_gmma.sum sm__inst_executed_pipe_tensor_op_hmma.sum \
sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active \
sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active \
smsp__warp_issue_stalled_barrier_per_warp_active.pct \
smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct \
smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct \
smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct \
smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct \
smsp__warp_issue_stalled_wait_per_warp_active.pct \
smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct \
smsp__warp_issue_stalled_membar_per_warp_active.pct \
smsp__warp_issue_stalled_sleeping_per_warp_active.pct \
smsp__warp_issue_stalled_dispatch_stall_per_warp_active.pct \
smsp__warp_issue_stalled_no_instruction_per_warp_active.pct \
smsp__warp_issue_stalled_selected_per_warp_active.pct \
smsp__warp_issue_stalled_not_selected_per_warp_active.pct \
smsp__issue_active.avg.pct_of_peak_sustained_active \
smsp__inst_executed_op_local_ld.sum smsp__inst_executed_op_local_st.sum \
l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum \
l1tex__t_sector_pipe_lsu_mem_local_op_ld_hit_rate.pct lts__t_sectors_srcunit_tex_op_write.sum \
smsp__inst_executed_op_ldgsts.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum \
lts__t_sectors.avg.pct_of_peak_sustained_elapsed l1tex__throughput.avg.pct_of_peak_sustained_active \
sm__warps_active.avg.per_cycle_active lts__t_requests_srcunit_tex_op_read.sum \
l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum \
smsp__inst_executed_op_shared_ld.sum smsp__inst_executed_op_branch.sum smsp__sass_inst_executed_op_global_ld.sum \
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
"$NCU" --query-metrics --chip gh100 > "$RES/ncu_query.txt" 2>&1 || true
HAVE=""
for m in $WANT; do
  base="${m%%.*}"
  if grep -q "^$base\b" "$RES/ncu_query.txt" 2>/dev/null; then HAVE="$HAVE,$m"; else echo "metric not available: $m"; fi
done
HAVE="${HAVE#,}"
if [ -n "$HAVE" ]; then WHAT=(--metrics "$HAVE"); else
  # the query failed: the standard sections hold most of these under the same raw names
  WHAT=(--section LaunchStats --section Occupancy --section WarpStateStats --section SpeedOfLight
        --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis); fi
echo "collect: ${WHAT[*]}"
export PYTHONUNBUFFERED=1
SETS=" ${SETS:-norms gemm spills ptx} "
for set in norms gemm spills extra stages staged softmaxw shortrows stridedew overflow aonly lane fp8 nt ranks unaligned carveout; do
  case "$SETS" in *" $set "*) ;; *) continue;; esac
  timeout 200 "$NCU" --profile-from-start off --clock-control none --cache-control all \
      "${WHAT[@]}" --csv --page raw \
      python3 "$HERE/ncu_kernel_facts.py" --set "$set" > "$RES/ncu_${set}_stdout.txt" 2>&1
  echo "ncu $set rc=$?"
  grep -E "^CASE|^FAILED" "$RES/ncu_${set}_stdout.txt" > "$RES/ncu_${set}_cases.txt"
  # the --csv report goes to stdout after the program's own lines
  grep -E '^"' "$RES/ncu_${set}_stdout.txt" > "$RES/ncu_${set}_facts.csv"
  wc -l "$RES/ncu_${set}_cases.txt" "$RES/ncu_${set}_facts.csv"
done
case "$SETS" in *" ptx "*) ;; *) exit 0;; esac
timeout 240 python3 "$HERE/triton_ptx_facts.py" --out "$RES" --workers 12 --budget-s 220
