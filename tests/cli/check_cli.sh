#!/usr/bin/env bash
# The CLI contract of DESIGN.md, checked against the real tilesight-cli: output keys, JSONL
# batches that survive bad lines, exit statuses 0/2, and clear errors for bad input.
set -u
cli=$(realpath "${TILESIGHT_CLI:?set TILESIGHT_CLI to the tilesight-cli binary}")
root=$(cd "$(dirname "$0")/../.." && pwd)
example="$root/resources/examples/gemm_h200.json"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

check() {  # check NAME CONDITION-COMMAND...
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $name" >&2; fi
}
# expect_error NAME EXPECTED-SUBSTRING INPUT-TEXT [EXTRA ARGS]: exit 2 and the message on stderr
expect_error() {
  local name=$1 want=$2 input=$3; shift 3
  printf '%s' "$input" > "$tmp/plan.json"
  timeout 20 "$cli" predict "$tmp/plan.json" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -ne 2 ] || ! grep -qF -- "$want" "$tmp/err"; then
    failed=$((failed + 1)); echo "FAIL: $name (rc=$rc, stderr: $(head -c 400 "$tmp/err"))" >&2
  else passed=$((passed + 1)); fi
}
gemm() { printf '{"kernel":"gemm","hardware":"h200","params":{%s}}' "$1"; }
base='"M":4096,"N":4096,"K":4096,"block_m":128,"block_n":128,"block_k":64,"stages":3,"warps":8'

# --version and the text report
check "--version" bash -c "'$cli' --version | grep -q 'tilesight-cli [0-9]'"
check "text report" bash -c "'$cli' predict '$example' | grep -q '<- bottleneck'"

# --format json: one object with the contract's keys
"$cli" predict "$example" --format json >"$tmp/out.json" 2>"$tmp/err"
check "json exit 0" test $? -eq 0
for key in latency_us prologue_us steady_us epilogue_us waves resident_blocks_per_sm bottleneck \
           utilization profile_source l2_hit_rate dram_bytes; do
  check "json key $key" grep -q "\"$key\"" "$tmp/out.json"
done
for r in tc cuda sfu tmem smem l15 l2 dram net; do
  check "utilization.$r" grep -q "\"$r\":" "$tmp/out.json"
done
check "json stdout is one object" bash -c "head -c1 '$tmp/out.json' | grep -q '{' && tail -c2 '$tmp/out.json' | grep -q '}'"
check "profile_source value" grep -Eq '"profile_source": "(measured|datasheet)"' "$tmp/out.json"

# stdin, --hw override, running from another folder
check "stdin" bash -c "cd / && '$cli' predict - --format json < '$example' | grep -q latency_us"
check "--hw override" bash -c "'$cli' predict '$example' --hw h100 --format json | grep -q '\"hardware\": \"h100\"'"
check "data found from /" bash -c "cd / && '$cli' predict '$example' >/dev/null"

# --jsonl: one result per line, a bad line gives {"error"} and the rest still run, status 2
{ tr -d '\n' < "$example"; echo; echo '{"kernel":"gemm","hardware":"h200","params":{"M":0}}'; echo '{broken';
  tr -d '\n' < "$example"; echo; } > "$tmp/batch.jsonl"
"$cli" predict --jsonl "$tmp/batch.jsonl" >"$tmp/batch.out" 2>"$tmp/batch.err"
check "jsonl status 2" test $? -eq 2
check "jsonl 4 lines" test "$(wc -l < "$tmp/batch.out")" -eq 4
check "jsonl line 1 ok" bash -c "sed -n 1p '$tmp/batch.out' | grep -q latency_us"
check "jsonl line 2 error" bash -c "sed -n 2p '$tmp/batch.out' | grep -q '\"error\".*params.M: must be positive, got 0'"
check "jsonl line 3 error" bash -c "sed -n 3p '$tmp/batch.out' | grep -q '\"error\"'"
check "jsonl line 4 ok" bash -c "sed -n 4p '$tmp/batch.out' | grep -q latency_us"
check "jsonl stderr names line" grep -q 'batch.jsonl:2:' "$tmp/batch.err"
check "--format jsonl" bash -c "'$cli' predict --format jsonl '$tmp/batch.jsonl' 2>/dev/null | wc -l | grep -qx 4"
# --threads: the same lines in the same order, stdout and stderr, on one thread or several
# (distinct plans, a blank line and bad lines between them: the line numbers are the file's)
for bm in 64 128 256; do
  echo "{\"kernel\":\"gemm\",\"hardware\":\"h200\",\"params\":{\"M\":2048,\"N\":2048,\"K\":1024,\"block_m\":$bm,\"block_n\":128,\"block_k\":64,\"stages\":3,\"group_m\":8,\"warps\":8,\"dtype\":\"bf16\"}}"
  echo; echo '{"kernel":"gemm","hardware":"h200","params":{"M":0}}'
done > "$tmp/threads.jsonl"
"$cli" predict --jsonl --threads 1 "$tmp/threads.jsonl" >"$tmp/t1.out" 2>"$tmp/t1.err"
check "--threads 1 status 2" test $? -eq 2
"$cli" predict --jsonl --threads 3 "$tmp/threads.jsonl" >"$tmp/t3.out" 2>"$tmp/t3.err"
check "--threads 3 status 2" test $? -eq 2
check "--threads same stdout" cmp -s "$tmp/t1.out" "$tmp/t3.out"
check "--threads same stderr" cmp -s "$tmp/t1.err" "$tmp/t3.err"
check "--threads 6 results" test "$(wc -l < "$tmp/t3.out")" -eq 6
check "--threads file's line numbers" bash -c "sed -n 6p '$tmp/t3.out' | grep -q '\"line\":9'"
check "--threads order" bash -c "sed -n 5p '$tmp/t3.out' | grep -q 'tile 256x128x64'"
timeout 20 "$cli" predict --jsonl --threads -1 "$tmp/threads.jsonl" >/dev/null 2>&1
check "--threads -1 refused" test $? -ne 0

# Bad input: exit 2, file and JSON path named

timeout 20 "$cli" predict "$tmp/nope.json" 2>"$tmp/err"; check "missing file rc" test $? -eq 2
expect_error "empty input" "plan.json" ""
expect_error "truncated" "line 1" '{"kernel": "gemm", "params": {'
expect_error "block_k zero" "params.block_k: must be positive, got 0" "$(gemm "$base,\"block_k\":0")"
expect_error "negative M" "params.M" "$(gemm '"M":-5,"N":64,"K":64')"
expect_error "float for integer" "params.M: must be an integer" "$(gemm '"M":64.5,"N":64,"K":64')"
expect_error "string for integer" "params.N" "$(gemm '"M":64,"N":"big","K":64')"
expect_error "too large" "params.K" "$(gemm '"M":64,"N":64,"K":1e30')"
expect_error "huge integer" "params.M" "$(gemm '"M":99999999999999999999,"N":64,"K":64')"
expect_error "unknown kernel" 'unknown kernel "gemmm"' '{"kernel":"gemmm","hardware":"h200","params":{}}'
expect_error "unknown hardware" 'unknown hardware "h300"' '{"kernel":"gemm","hardware":"h300","params":{"M":64,"N":64,"K":64}}'
expect_error "unknown field" 'unknown field "blokc_m"' "$(gemm '"M":64,"N":64,"K":64,"blokc_m":64')"
expect_error "smem too big" "h200 allows 227 KiB" "$(gemm '"M":4096,"N":4096,"K":4096,"block_m":256,"block_n":256,"block_k":128,"stages":5')"
expect_error "several limits" "registers" "$(gemm '"M":4096,"N":4096,"K":4096,"block_m":256,"block_n":256,"block_k":128,"stages":5,"warps":40')"
expect_error "deep nesting" "nest" "$(printf '%0.s[' $(seq 1 100000))"

# Fused-kernel templates (issue 6): each bad field named by its JSON path
att() { printf '{"kernel":"attention","hardware":"h200","params":{%s}}' "$1"; }
mla() { printf '{"kernel":"mla_decode","hardware":"h200","params":{%s}}' "$1"; }
expect_error "attention kv_heads" "params.heads: 32 heads are not a multiple of kv_heads 7" "$(att '"heads":32,"kv_heads":7,"seq_q":128,"seq_kv":128,"head_dim":128')"
expect_error "attention empty seq" "params.seq_kv: must be positive" "$(att '"heads":8,"seq_q":128,"seq_kv":0,"head_dim":128')"
expect_error "fa4 head_dim" "params.head_dim: fa4 runs head dims" "$(att '"heads":8,"seq_q":128,"seq_kv":128,"head_dim":256,"variant":"fa4"')"
expect_error "mla empty seq" "params.seq_kv: must be positive" "$(mla '"batch":4,"seq_kv":0')"
expect_error "mla rank" "params.kv_lora_rank: must be a multiple of 128" "$(mla '"batch":4,"seq_kv":4096,"kv_lora_rank":500')"
expect_error "mla unknown field" 'unknown field "head_dim"' "$(mla '"batch":4,"seq_kv":4096,"head_dim":576')"
check "mla_decode predicts" bash -c "'$cli' predict '$root/resources/examples/mla_decode_h200.json' --format json | grep -q latency_us"
expect_error "not an object" "object" '[1,2,3]'
expect_error "no hardware" "hardware" '{"kernel":"gemm","params":{"M":64,"N":64,"K":64}}'

# Collectives (issue 7): system profiles, the network keys, and clear errors.
coll() { printf '{"kernel":"%s","hardware":"%s","params":{%s}}' "$1" "$2" "$3"; }
"$cli" predict "$root/resources/examples/all_reduce_h200x8.json" --format json >"$tmp/ar.json" 2>"$tmp/err"
check "collective exit 0" test $? -eq 0
for key in latency_us bottleneck utilization bottleneck_link network links collectives busbw_gbps stages; do
  check "collective key $key" grep -q "\"$key\"" "$tmp/ar.json"
done
check "collective bottleneck net" grep -q '"bottleneck": "net"' "$tmp/ar.json"
check "collective text" bash -c "'$cli' predict '$root/resources/examples/all_reduce_h200x8.json' | grep -q 'bottleneck link'"
check "gemm on one GPU of a system" bash -c "'$cli' predict '$example' --hw h200x8 --format json | grep -q latency_us"
expect_error "devices > system" "params.devices: must be at most 8" "$(coll all_reduce h200x8 '"bytes":1024,"devices":16')"
expect_error "bytes zero" "params.bytes: must be positive" "$(coll all_gather h200x8 '"bytes":0,"devices":8')"
expect_error "bytes negative" "params.bytes" "$(coll all_gather h200x8 '"bytes":-5,"devices":8')"
expect_error "unknown algorithm" 'params.algorithm: unknown algorithm "butterfly"' "$(coll all_reduce h200x8 '"bytes":1024,"devices":8,"algorithm":"butterfly"')"
expect_error "algorithm cannot run" 'params.algorithm: "rabenseifner" cannot run all_reduce on 6 devices' "$(coll all_reduce h200x8 '"bytes":1024,"devices":6,"algorithm":"rabenseifner"')"
expect_error "unknown protocol" 'params.protocol: unknown protocol' "$(coll all_reduce h200x8 '"bytes":1024,"devices":8,"protocol":"LL64"')"
expect_error "single-GPU profile" 'hardware: "h200" is a single-GPU profile' "$(coll all_reduce h200 '"bytes":1024,"devices":2')"
expect_error "one device" "params.devices: must be at least 2" "$(coll reduce_scatter h200x8 '"bytes":1024,"devices":1')"
expect_error "missing bytes" "params.bytes: missing" "$(coll all_to_all h200x8 '"devices":4')"
expect_error "unknown system" 'unknown hardware "h200x9"' "$(coll all_reduce h200x9 '"bytes":1024,"devices":2')"
# What-if topologies (net/what_if.h): --what-if merges into the plan's "what_if".
b32="$root/resources/examples/all_reduce_b200x32.json"
check "what-if rail faster" bash -c "a=\$('$cli' predict '$b32' --format json | grep -m1 '\"latency_us\"' | tr -dc '0-9.'); b=\$('$cli' predict '$b32' --format json --what-if '{\"add_rail\": {\"ib_ndr\": 1}}' | grep -m1 '\"latency_us\"' | tr -dc '0-9.'); awk -v a=\$a -v b=\$b 'BEGIN { exit !(b < 0.6 * a) }'"
expect_error "what-if unknown link type" 'what_if.add_rail.ib9: unknown link type "ib9"' "$(cat "$b32")" --what-if '{"add_rail": {"ib9": 1}}'
expect_error "what-if cuts the nodes apart" 'what_if.remove_level[0]: without ib_ndr, gpu0 cannot reach gpu8' "$(cat "$b32")" --what-if '{"remove_level": ["ib_ndr"]}'
expect_error "what-if not JSON" '--what-if' "$(cat "$b32")" --what-if '{"add_rail": '
expect_error "what-if on one GPU" '--what-if: what-if topologies apply to plans over several GPUs' "$(gemm "$base")" --what-if '{"add_rail": {"ib_ndr": 1}}'
check "ag_gemm overlap_rate" bash -c "'$cli' predict '$root/resources/examples/ag_gemm_h200x8.json' --format json | grep -q overlap_rate"
fused() { printf '{"kernel":"%s","hardware":"h200x8","params":{"M":4096,"N":4096,"K":4096,%s}}' "$1" "$2"; }
expect_error "fused N not divisible" "params.N: must be a multiple of devices (3)" "$(fused ag_gemm '"devices":3')"
expect_error "fused bad overlap" 'params.overlap: unknown overlap "async"' "$(fused gemm_rs '"devices":8,"overlap":"async"')"
expect_error "fused gemm typo" 'unknown field "blokc_m"' "$(fused gemm_rs '"devices":8,"blokc_m":64')"
expect_error "fused devices > system" "params.devices: must be at most 8" "$(fused ag_gemm '"devices":16')"
check "ulysses runs" bash -c "'$cli' predict '$root/resources/examples/ulysses_h200x8.json' --format json | grep -q overlap_rate"
expect_error "ulysses heads" "params.kv_heads: must be a multiple of devices (8)" '{"kernel":"ulysses_attention","hardware":"h200x8","params":{"batch":1,"heads":32,"kv_heads":4,"seq_q":1024,"seq_kv":1024,"head_dim":128,"causal":false,"devices":8}}'
check "llm_decode step" bash -c "'$cli' predict '$root/resources/examples/llm_decode_h200x8.json' --format json | grep -q tokens_per_s"
check "llm_decode moe" bash -c "'$cli' predict '$root/resources/examples/llm_decode_moe_h200x8.json' --format json | grep -q step_us"
expect_error "llm_decode tp" "params.model.heads: must be a multiple of tp (3)" '{"kernel":"llm_decode","hardware":"h200x8","params":{"model":{"layers":2,"hidden":1024,"heads":8,"kv_heads":8,"ffn":4096,"vocab":32000},"batch":1,"ctx":128,"tp":3}}'

# --maps: the cache model's per-tile hit-rate maps, in JSON (one a read tensor, however many
# accesses read it) and drawn in text; none without the flag.
"$cli" predict "$example" --maps --format json >"$tmp/maps.json" 2>"$tmp/err"
check "--maps json exit 0" test $? -eq 0
check "--maps json maps" python3 -c "
import json, sys
maps = json.load(open('$tmp/maps.json'))['hit_rate_maps']
assert [(m['tensor'], m['level']) for m in maps] == [('', 'l2'), ('A', 'l2'), ('B', 'l2')], maps
for m in maps:
    assert (m['rows'], m['cols'], m['row_dim'], m['col_dim']) == (32, 32, 'm', 'n'), m
    assert len(m['hit_rate']) == len(m['reuse_distance']) == 32 * 32
    assert all(0 <= v <= 1 for v in m['hit_rate'])
"
check "no maps without --maps" bash -c "! grep -q hit_rate_maps '$tmp/out.json'"
check "--maps one map a tensor" bash -c "'$cli' predict '$root/resources/examples/rmsnorm_h200.json' --maps --format json | python3 -c \"import json,sys; assert [m['tensor'] for m in json.load(sys.stdin)['hit_rate_maps']] == ['', 'X', 'W']\""
check "--maps jsonl" bash -c "tr -d '\n' < '$example' | '$cli' predict --jsonl --maps - | grep -q '\"hit_rate_maps\"'"
printf '{"kernel":"rmsnorm","hardware":"h200","params":{"rows":8000000,"cols":4096}}' > "$tmp/huge.json"
check "--maps past the cap: none, and a warning" bash -c "timeout 20 '$cli' predict '$tmp/huge.json' --maps --format json | python3 -c \"import json,sys; d=json.load(sys.stdin); assert d['hit_rate_maps'] == [] and 'past the 1048576' in d['warnings'][0], d.get('warnings')\""
check "--maps text" bash -c "'$cli' predict '$example' --maps | grep -q 'L2 hit rate per tile (all tensors), 32 x 32 tiles (rows: m, columns: n)'"

# validate's thresholds: exit 3 and the problem named when one shape ranks below the bound.
corpus="$root/tests/validation/h200/triton_gemm.csv"
"$cli" validate "$corpus" --min-problem-spearman 0.5 >"$tmp/val.out"
check "validate per-shape bound met" test $? -eq 0
"$cli" validate "$corpus" --min-problem-spearman 0.99 >"$tmp/val.out"
check "validate per-shape bound missed: exit 3" test $? -eq 3
check "validate per-shape bound names the shape" grep -q "FAIL: gemm M=.* Spearman 0\.[0-9]* below 0\.990" "$tmp/val.out"

# Real kernels are never rejected (DESIGN.md): 96/144/192/320 tiles, 12 warps, 227 KiB.
for cfg in '"block_m":128,"block_n":320,"block_k":64,"stages":2,"warps":12' \
           '"block_m":192,"block_n":144,"block_k":64,"stages":3,"warps":12' \
           '"block_m":96,"block_n":256,"block_k":64,"stages":3,"warps":8' \
           '"block_m":256,"block_n":256,"block_k":64,"stages":3,"warps":8'; do
  printf '%s' "$(gemm "\"M\":8192,\"N\":8192,\"K\":8192,$cfg")" > "$tmp/real.json"
  check "real config $cfg" bash -c "'$cli' predict '$tmp/real.json' >/dev/null 2>'$tmp/real.err'"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
