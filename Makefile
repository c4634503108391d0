# gotrace — build, test and benchmark.
#
#   make            build/libgotrace.so and build/gotrace
#   make deps       install the Debian packages (Go 1.23 + newest Go included)
#   make test       unit tests, then integration tests that trace real programs
#   make bench      overhead benchmarks against peer tools (not part of test;
#                   BENCH_ONLY=mutex,sysbench make bench runs a few sections)
#   make demo       trace the bundled contended example and say what to open

CC      ?= cc
CXX     ?= c++
CFLAGS  ?= -O2 -g
PYTHON  ?= python3
PREFIX  ?= /usr/local

WARN    := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
BASE    := -std=gnu11 -D_GNU_SOURCE -I. $(WARN)
# The preloaded library: hidden by default (only the wrappers are exported),
# initial-exec TLS (never allocates on first access), no builtin malloc rewrites.
LIBFLAGS := $(BASE) -fPIC -fvisibility=hidden -ftls-model=initial-exec \
            -fno-builtin-malloc -fno-builtin-free -fno-builtin-calloc -fno-builtin-realloc \
            -fexceptions -fasynchronous-unwind-tables
LIBS    := -ldw -lelf -lz -ldl -lpthread

ENCODER_SRC := $(wildcard encoder/*.c)
# core/mem_libc.c: the core's allocations in binaries without the library
# (core/mem.h); the library's are core/mem.c's.
CORE_SRC    := $(filter-out core/mem_libc.c,$(wildcard core/*.c))
INTERPOSE_SRC := $(wildcard interpose/*.c)
TOOLS_SRC   := $(wildcard tools/*.c)
# Core modules without global state or constructors: safe to link into tests and tools.
PURE_CORE   := core/config.c core/symbols.c core/radix.c core/symfile.c core/owntable.c core/strtab.c core/stacktab.c core/idmap.c core/region.c core/sys.c \
               core/cfi.c core/modules.c core/unwind.c
PURE_CORE   := $(filter $(CORE_SRC),$(PURE_CORE)) core/mem_libc.c

LIB_OBJ   := $(patsubst %.c,build/obj/lib/%.o,$(ENCODER_SRC) $(CORE_SRC) $(INTERPOSE_SRC))
TOOL_OBJ  := $(patsubst %.c,build/obj/tool/%.o,$(TOOLS_SRC) $(ENCODER_SRC) $(filter core/config.c core/symbols.c core/radix.c core/symfile.c core/owntable.c core/mem_libc.c,$(PURE_CORE)))
UNIT_SRC  := $(wildcard test/unit/*.c)
UNIT_OBJ  := $(patsubst %.c,build/obj/unit/%.o,$(UNIT_SRC) $(ENCODER_SRC) $(PURE_CORE))

all: build/libgotrace.so build/gotrace

build/libgotrace.so: $(LIB_OBJ)
	$(CC) -shared -o $@ $^ -Wl,-z,nodelete -Wl,--no-undefined $(LIBS)

build/gotrace: $(TOOL_OBJ)
	$(CC) -o $@ $^ -ldw -lelf -lz -lm

build/obj/lib/%.o: %.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LIBFLAGS) -c -o $@ $<

# -fno-ipa-icf: each wrapper names itself in stacks (GT_SITE), so two wrappers
# with the same body (sched_yield, pthread_yield) must stay two functions.
build/obj/lib/interpose/%.o: interpose/%.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LIBFLAGS) -fno-ipa-icf -c -o $@ $<

build/obj/tool/%.o: %.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(BASE) -c -o $@ $<

build/obj/unit/%.o: %.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(BASE) -c -o $@ $<

# test_heap_sources.c includes the heap tool's modules (tools/ is not linked
# into the unit tests).
build/obj/unit/test/unit/test_heap_sources.o: $(wildcard tools/heap_*.c tools/heap_*.h tools/gen_tables.c tools/gen_tables.h tools/replay.c tools/replay.h tools/pprof.c tools/pprof.h tools/gzip.c tools/gzip.h)

build/obj/unit/test/unit/test_heap_sampling.o: core/sample.c core/heapset.c

build/obj/unit/test/unit/test_stat_sources.o: $(wildcard tools/stat_*.c tools/stat_*.h tools/gen_tables.h tools/replay.h tools/ident.h)

build/obj/unit/test/unit/test_run_sources.o: $(wildcard tools/ident.* tools/outname.* tools/probe.* tools/run_report.* tools/units.*)

build/unit-tests: $(UNIT_OBJ)
	$(CC) -o $@ $^ -lcriterion -ldw -lelf -lz -lpthread -lm

deps:
	bash scripts/install-deps.sh

unit: build/unit-tests
	build/unit-tests --jobs 2

integration: all
	$(PYTHON) test/integration/run.py

# test and demo are the README's two commands: on a fresh Debian 12 machine
# they install what is missing first (scripts/install-deps.sh is idempotent).
test: deps
	$(MAKE) all build/unit-tests
	build/unit-tests --jobs 2
	$(PYTHON) test/integration/run.py

bench-deps: deps
	bash scripts/install-bench-deps.sh

bench: deps bench-deps
	$(MAKE) all
	$(PYTHON) test/bench/run.py

demo: deps
	$(MAKE) all
	bash scripts/demo.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/gotrace
	install -m 755 build/gotrace $(DESTDIR)$(PREFIX)/bin/gotrace
	install -m 755 build/libgotrace.so $(DESTDIR)$(PREFIX)/lib/gotrace/libgotrace.so
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 docs/gotrace.1 $(DESTDIR)$(PREFIX)/share/man/man1/gotrace.1

# Fuzz the trace reader and the heap accounting (clang + libFuzzer); the
# corpus in test/fuzz/corpus is replayed by the unit tests.
fuzz:
	bash test/fuzz/run.sh $(or $(FUZZ_SECONDS),150)

clean:
	rm -rf build

.PHONY: all deps bench-deps unit integration test bench demo install fuzz clean
