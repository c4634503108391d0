#!/bin/bash
# unit-coverage.sh — how many of the library's own functions (the gt_*
# functions defined in build/libgotrace.so, static ones included) are linked
# into build/unit-tests. Linked is the measure: the unit tests call the
# engine (core/engine.h) with everything below it.
#
#   bash scripts/unit-coverage.sh [LIB] [TESTS]      (make unit-coverage)
#
# Prints "N of M gt_* functions of libgotrace.so are linked into
# build/unit-tests (P %)", then the ones that are not.
set -euo pipefail
lib=${1:-build/libgotrace.so}
tests=${2:-build/unit-tests}
funcs() {
	nm "$1" | awk '$2 ~ /^[tT]$/ && $3 ~ /^gt_/ {print $3}' | sed 's/\..*//' | sort -u
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
funcs "$lib" >"$tmp/lib"
funcs "$tests" >"$tmp/unit"
total=$(wc -l <"$tmp/lib")
linked=$(comm -12 "$tmp/lib" "$tmp/unit" | wc -l)
awk -v n="$linked" -v m="$total" -v lib="$(basename "$lib")" -v t="$tests" \
	'BEGIN { printf "%d of %d gt_* functions of %s are linked into %s (%.1f %%)\n", n, m, lib, t, m ? 100 * n / m : 0 }'
missing=$(comm -23 "$tmp/lib" "$tmp/unit" | tr '\n' ' ')
[ -n "$missing" ] && echo "not linked: $missing"
exit 0
