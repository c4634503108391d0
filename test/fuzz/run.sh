#!/usr/bin/env bash
# run.sh — fuzz encoder/reader and the `gotrace heap` accounting with libFuzzer.
#
#   test/fuzz/run.sh [SECONDS]   build build/fuzz/fuzz_reader (clang, libFuzzer,
#                                ASan + UBSan) and fuzz for SECONDS (default 150),
#                                starting from test/fuzz/corpus; new inputs go to
#                                build/fuzz/corpus, crashes to build/fuzz/crash-*
#   test/fuzz/run.sh build       only build
#   test/fuzz/run.sh seeds       rewrite the synthetic seeds in test/fuzz/corpus
#
# Needs clang and libFuzzer (Debian 12: clang-14 and libclang-rt-14-dev).
# A crash is replayed with: build/fuzz/fuzz_reader build/fuzz/crash-...
# `make test` replays test/fuzz/corpus without sanitizers
# (test/unit/test_fuzz_corpus.c).
set -euo pipefail
cd "$(dirname "$0")/../.."

CLANG=${CLANG:-}
if [ -z "$CLANG" ]; then
  for c in clang clang-14 clang-15 clang-16; do
    if command -v "$c" >/dev/null; then CLANG=$c; break; fi
  done
fi

SRC=(test/fuzz/fuzz_reader.c encoder/*.c tools/heap_acct.c tools/heap_map.c tools/heap_sites.c
     tools/heap_report.c tools/heap_pprof.c tools/heap_sample.c tools/pprof.c tools/gzip.c
     tools/replay.c tools/gen_tables.c tools/units.c core/sample.c)
OUT=build/fuzz

build() {
  if [ -z "$CLANG" ]; then
    echo "run.sh: clang not found (Debian 12: apt-get install clang-14 libclang-rt-14-dev)" >&2
    exit 2
  fi
  mkdir -p "$OUT"
  "$CLANG" -g -O1 -std=gnu11 -D_GNU_SOURCE -I. \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -o "$OUT/fuzz_reader" "${SRC[@]}" -lz
}

case "${1:-}" in
build)
  build ;;
seeds)
  mkdir -p build
  cc -O1 -g -std=gnu11 -D_GNU_SOURCE -I. -o build/make_seeds test/fuzz/make_seeds.c \
    test/unit/test_heap_fixture.c test/unit/test_reader_fixture.c encoder/*.c
  build/make_seeds test/fuzz/corpus ;;
*)
  secs=${1:-150}
  build
  mkdir -p "$OUT/corpus"
  "$OUT/fuzz_reader" -max_total_time="$secs" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$OUT/" -print_final_stats=1 "$OUT/corpus" test/fuzz/corpus ;;
esac
