#!/usr/bin/env bash
# Regenerates tests/golden/expected/ from the current build; review with `git diff`.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cli=$(realpath "${TILESIGHT_CLI:-$root/build/bin/tilesight-cli}")
grep -v '^#' "$root/tests/golden/cases.txt" | while IFS='|' read -r name args; do
  name=$(echo "$name" | xargs)
  [ -n "$name" ] || continue
  bash "$root/tests/golden/run_case.sh" "$cli" $args > "$root/tests/golden/expected/$name.out"
done
echo "regenerated $(ls "$root/tests/golden/expected" | wc -l) golden outputs"
