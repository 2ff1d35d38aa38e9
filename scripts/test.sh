#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build with warnings as errors, and run the
# whole test suite (unit, golden reports, CLI contract, accuracy on measured corpora).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
"$root/scripts/build.sh" -DTILESIGHT_WERROR=ON
cd "$root/build"
ctest -j2 --output-on-failure
