#!/usr/bin/env bash
# demo.sh — `make demo`: trace examples/contention.c, check the trace, show its sync profile.
#
# Run from the repository root after `make` (the Makefile's demo target does
# both). Every step must succeed; the first failure stops the script with a
# message naming the step and a non-zero status.
set -euo pipefail

cd "$(dirname "$0")/.."

GO=${GO:-/usr/lib/go-1.27/bin/go}   # the newest Go: its reader is the strictest
CC=${CC:-cc}
EXE=build/examples/contention
OUT=build/demo
TRACE=$OUT/contention.trace
PROFILE=$OUT/sync.pb

step() { printf '\n== %s\n' "$*"; }
fail() { printf 'demo: FAILED: %s\n' "$*" >&2; exit 1; }

[ -x build/gotrace ] || fail "build/gotrace is missing; run 'make' first"
[ -f build/libgotrace.so ] || fail "build/libgotrace.so is missing; run 'make' first"
[ -x "$GO" ] || fail "$GO not found; run 'make deps' (or set GO=/path/to/go, Go >= 1.23)"
export GOTOOLCHAIN=local   # never download a toolchain

step "compiling examples/contention.c -> $EXE"
mkdir -p build/examples "$OUT"
"$CC" -g -O2 -pthread -Wall -Wextra -o "$EXE" examples/contention.c \
	|| fail "compiling examples/contention.c"

step "tracing: build/gotrace run -o $TRACE -- $EXE"
rm -f "$TRACE" "$PROFILE"
build/gotrace run -o "$TRACE" -- "$EXE" || fail "the traced program exited with status $?"
[ -s "$TRACE" ] || fail "no trace at $TRACE"

step "validating the trace with $("$GO" version | cut -d' ' -f3)"
"$GO" tool trace -d=parsed "$TRACE" >/dev/null || fail "go tool trace could not parse $TRACE"
echo "ok: $TRACE parses ($(wc -c <"$TRACE") bytes)"

step "sync blocking profile (go tool trace -pprof=sync)"
"$GO" tool trace -pprof=sync "$TRACE" >"$PROFILE" || fail "go tool trace -pprof=sync"
[ -s "$PROFILE" ] || fail "the sync profile is empty: no contended lock was traced"
"$GO" tool pprof -top "$PROFILE" >"$OUT/sync.top" 2>&1 || fail "go tool pprof -top $PROFILE"
head -n 20 "$OUT/sync.top"

cat <<EOF

== done. Open the trace (timelines, goroutine analysis, profiles) with the newest
   Go on this machine (gotrace view finds it and prints the address to open):

    build/gotrace view $TRACE

   Or the sync blocking profile in pprof's web UI (flame graph, source):

    build/gotrace view -pprof=sync $TRACE

   The same with Go by hand:

    GOTOOLCHAIN=local $GO tool trace $TRACE
    GOTOOLCHAIN=local $GO tool pprof -http=: $PROFILE

EOF
