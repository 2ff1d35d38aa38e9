#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, and run the main job on the
# default example (the CLI report of a 4096^3 bf16 GEMM on an H200).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
"$root/scripts/build.sh"
"$root/build/bin/tilesight-cli" predict "$root/resources/examples/gemm_h200.json"
