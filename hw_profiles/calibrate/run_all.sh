#!/usr/bin/env bash
# Run A: H200 calibration microbenchmarks. Run from the repo root on the GPU machine:
#   RES=/tmp/res/calib OUT=/some/dir bash hw_profiles/calibrate/run_all.sh
# Writes CSVs into $RES (default hw_profiles/calibrate/h200) and, after every step,
# a tarball of $RES into $OUT/calib.tgz (if OUT is set), so a killed run keeps what it had.
# Each step guards its own time budget; CALIB_BUDGET_S scales nothing, it only skips the
# remaining steps once exceeded. STEPS selects steps (default: bw pchase tc launch compute lif).
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RES="${RES:-$HERE/h200}"
BUDGET="${CALIB_BUDGET_S:-260}"
STEPS=" ${STEPS:-bw pchase tc launch compute lif} "   # subset, e.g. STEPS=lif
want() { case "$STEPS" in *" $1 "*) return 0;; esac; return 1; }
mkdir -p "$RES"
T0=$(date +%s)
export PYTHONUNBUFFERED=1
NVCC="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
BUILD=/tmp/calib_build
mkdir -p "$BUILD"

snap() { if [ -n "${OUT:-}" ]; then tar czf "$OUT/calib.tgz.tmp" -C "$RES" . && mv "$OUT/calib.tgz.tmp" "$OUT/calib.tgz"; fi; }
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
hdr() { python3 "$HERE/envinfo.py" "$1"; }

echo "== env"; hdr "hw_profiles/calibrate/run_all.sh" | tee "$RES/env.txt"
nvidia-smi >> "$RES/env.txt" 2>&1

# compile the CUDA programs in the background while the Python steps run
( for p in pchase lif compute; do
    "$NVCC" -O3 -arch=sm_90a -Xptxas -v -o "$BUILD/$p" "$HERE/$p.cu" > "$BUILD/$p.build.txt" 2>&1 \
      || echo "build of $p failed" ; done
  command -v cuobjdump >/dev/null && for p in pchase lif compute; do
    cuobjdump --dump-sass "$BUILD/$p" > "$BUILD/$p.sass.txt" 2>&1; done ) &
BUILD_PID=$!

if want bw; then
  echo "== bw_sweep ($(left) s left)"
  python3 "$HERE/bw_sweep.py" --out "$RES" --budget-s 40 || echo "bw_sweep failed rc=$?"
  snap
fi

wait $BUILD_PID
cat "$BUILD"/*.build.txt > "$RES/build_log.txt" 2>/dev/null
mkdir -p "$RES/sass"; cp "$BUILD"/*.sass.txt "$RES/sass/" 2>/dev/null

if want pchase && [ "$(left)" -gt 30 ] && [ -x "$BUILD/pchase" ]; then
  echo "== pointer chase ($(left) s left)"
  hdr "hw_profiles/calibrate/pchase.cu" > "$RES/pointer_chase.csv"
  echo "# method: 1 thread, dependent loads over a random single-cycle permutation of 128-B-spaced nodes; ca = ld.global.ca (L1+L2), cg = ld.global.cg (L2 only); warm pass over min(nodes, 1M) first; ns from %globaltimer, cycles from clock64; each load includes one IMAD.WIDE address op" >> "$RES/pointer_chase.csv"
  "$BUILD/pchase" 45 "$BUILD/hist.csv" >> "$RES/pointer_chase.csv" || echo "pchase failed rc=$?"
  hdr "hw_profiles/calibrate/pchase.cu (histogram)" > "$RES/pointer_chase_hist.csv"
  echo "# method: 4096 single loads timed one at a time with clock64 (a shared-memory store of the loaded index sits between the two clock reads, so ~20-30 cycles of overhead are included); 8-cycle bins" >> "$RES/pointer_chase_hist.csv"
  cat "$BUILD/hist.csv" >> "$RES/pointer_chase_hist.csv" 2>/dev/null
  grep -v '^#' "$RES/pointer_chase.csv"
  snap
fi

if want tc && [ "$(left)" -gt 40 ]; then
  echo "== tc_throughput ($(left) s left)"
  python3 "$HERE/tc_throughput.py" --out "$RES" --budget-s 85 || echo "tc_throughput failed rc=$?"
  snap
fi

if want launch && [ "$(left)" -gt 15 ]; then
  echo "== launch_overhead ($(left) s left)"
  python3 "$HERE/launch_overhead.py" --out "$RES" --budget-s 25 || echo "launch_overhead failed rc=$?"
  snap
fi

if want compute && [ "$(left)" -gt 10 ] && [ -x "$BUILD/compute" ]; then
  echo "== compute ($(left) s left)"
  hdr "hw_profiles/calibrate/compute.cu" > "$RES/cuda_core.csv"
  timeout 60 "$BUILD/compute" >> "$RES/cuda_core.csv" || echo "compute failed rc=$?"
  cat "$RES/cuda_core.csv" | grep -v '^#'
  # check that the shared-memory loads survived ptxas (one LDS.128 per load in the loop)
  [ -f "$BUILD/compute.sass.txt" ] && awk '/Function : .*k_smem/{f=1;next} /Function :/{f=0} f' \
    "$BUILD/compute.sass.txt" | grep -c "LDS.128" | sed 's/^/k_smem LDS.128 count: /'
  snap
fi

if want lif && [ "$(left)" -gt 10 ] && [ -x "$BUILD/lif" ]; then
  echo "== loads in flight ($(left) s left)"
  hdr "hw_profiles/calibrate/lif.cu" > "$RES/loads_in_flight.csv"
  timeout 60 "$BUILD/lif" 25 >> "$RES/loads_in_flight.csv" || echo "lif failed rc=$?"
  grep -v '^#' "$RES/loads_in_flight.csv"
  snap
fi
echo "== run_all done in $(( $(date +%s) - T0 )) s"
ls -la "$RES"
