#!/usr/bin/env bash
# Runs one golden case: prints the CLI's stdout, then its exit status on the last line.
cli=$1; shift
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
# shellcheck disable=SC2086
"$cli" $* 2>/dev/null
echo "exit status: $?"
