#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, and open the desktop app on the
# default example (a 4096^3 bf16 GEMM on an H200). Without a display the app prints the
# report, writes tilesight-main-window.png (a picture of the window) and exits.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
"$root/scripts/build.sh"
"$root/build/bin/tilesight" "$root/resources/examples/gemm_h200.json"
