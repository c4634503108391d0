#!/bin/bash
# unit-coverage.sh — how many of the library's own functions (the gt_*
# functions defined in build/libgotrace.so, static ones included) are linked
# into build/unit-tests. Linked is the measure: the unit tests call the
# engine (core/engine.h) with everything below it.
#
#   bash scripts/unit-coverage.sh            (make unit-coverage)
#   bash scripts/unit-coverage.sh --run      (make unit-coverage-run)
#
# Prints "N of M gt_* functions of libgotrace.so are linked into
# build/unit-tests (P %)", then the ones that are not. With --run, it also
# runs the gcov build of the unit tests (build/unit-tests-cov, every test)
# and prints how many of the M the tests executed (by gcov, which does not
# see what runs in the child of a fork), and which they did not.
set -euo pipefail
lib=build/libgotrace.so
tests=build/unit-tests
funcs() {
	nm "$1" | awk '$2 ~ /^[tT]$/ && $3 ~ /^gt_/ {print $3}' | sed 's/\..*//' | sort -u
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
funcs "$lib" >"$tmp/lib"
funcs "$tests" >"$tmp/unit"
total=$(wc -l <"$tmp/lib")
share() { awk -v n="$1" -v m="$total" 'BEGIN { printf "%.1f", m ? 100 * n / m : 0 }'; }
linked=$(comm -12 "$tmp/lib" "$tmp/unit" | wc -l)
echo "$linked of $total gt_* functions of libgotrace.so are linked into $tests ($(share "$linked") %)"
missing=$(comm -23 "$tmp/lib" "$tmp/unit" | tr '\n' ' ')
[ -n "$missing" ] && echo "not linked: $missing"
[ "${1:-}" = "--run" ] || exit 0

cov=build/obj/cov
find "$cov" -name '*.gcda' -delete
build/unit-tests-cov --jobs 2 >"$tmp/run.log" 2>&1 || { tail -20 "$tmp/run.log"; echo "the unit tests failed"; exit 1; }
# gcov's function summaries: "Function 'name'" then "Lines executed:P% of N".
for src in core/*.c encoder/*.c; do
	obj="$cov/${src%.c}.gcda"
	[ -f "$obj" ] || continue
	(cd "$tmp" && gcov -f -n -o "$OLDPWD/$cov/$(dirname "$src")" "$OLDPWD/$src" 2>/dev/null) |
		awk '/^Function / { f = $2; gsub(/\047/, "", f) } /^Lines executed:/ && f != "" { if ($0 !~ /executed:0\.00%/) print f; f = "" }'
done | sort -u >"$tmp/ran"
ran=$(comm -12 "$tmp/lib" "$tmp/ran" | wc -l)
echo "$ran of $total gt_* functions of libgotrace.so are executed by the unit tests ($(share "$ran") %)"
echo "not executed: $(comm -23 "$tmp/lib" "$tmp/ran" | tr '\n' ' ')"
