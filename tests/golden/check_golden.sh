#!/usr/bin/env bash
# Compares each golden case's output with tests/golden/expected/NAME.out.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cli=$(realpath "${TILESIGHT_CLI:?set TILESIGHT_CLI}")
passed=0 failed=0
while IFS='|' read -r name args; do
  name=$(echo "$name" | xargs)
  [ -n "$name" ] || continue
  case $name in \#*) continue;; esac
  if diff -u "$root/tests/golden/expected/$name.out" <(bash "$root/tests/golden/run_case.sh" "$cli" $args) >/tmp/golden_diff.$$ 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); echo "FAIL: golden $name"; head -40 /tmp/golden_diff.$$
  fi
done < "$root/tests/golden/cases.txt"
rm -f /tmp/golden_diff.$$
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
