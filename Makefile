# gotrace — build, test and benchmark.
#
#   make            build/libgotrace.so and build/gotrace
#   make deps       install the Debian packages (Go 1.23 + newest Go included)
#   make test       unit tests, then integration tests that trace real programs
#   make unit-coverage   how many of the library's gt_* functions the unit
#                   tests link (unit-coverage-run: and run, with gcov)
#   make bench      overhead benchmarks against peer tools (not part of test;
#                   BENCH_ONLY=mutex,sysbench make bench runs a few sections)
#   make demo       trace the bundled contended example and say what to open
#   make install    gotrace, the preload library, gotrace.h, gotrace.pc, the man
#                   page and bash completion under $(DESTDIR)$(PREFIX)
#   make deb        build/gotrace_<version>_<arch>.deb (debhelper), checked by lintian

CC      ?= cc
CXX     ?= c++
CFLAGS  ?= -O2 -g
PYTHON  ?= python3
PREFIX  ?= /usr/local
# The version, from its one place: the file VERSION (the tool, the man page,
# gotrace.pc and the Debian package take it from here).
VERSION := $(shell cat VERSION)
# Debian's multiarch library directory (x86_64-linux-gnu); plain lib elsewhere.
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
LIBDIR  ?= $(PREFIX)/lib$(if $(MULTIARCH),/$(MULTIARCH))

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
# Core modules without global state or constructors that the tools use.
TOOL_CORE   := $(filter $(CORE_SRC),core/config.c core/symbols.c core/radix.c core/symcu.c core/symfile.c core/owntable.c core/sample.c) core/mem_libc.c
# The engine: every core file (new ones included) but those named here; the
# unit tests link it whole and drive it without LD_PRELOAD (core/engine.h).
# The preload layer (interpose/preload.c) and the wrappers stay out.
ENGINE_EXCLUDE :=
ENGINE_SRC  := $(filter-out $(ENGINE_EXCLUDE),$(CORE_SRC))

# The library writes traces; the reader (encoder/reader*.c) is the tools' and the tests'.
LIB_ENCODER := $(filter-out encoder/reader%,$(ENCODER_SRC))
LIB_OBJ   := $(patsubst %.c,build/obj/lib/%.o,$(LIB_ENCODER) $(CORE_SRC) $(INTERPOSE_SRC))
TOOL_OBJ  := $(patsubst %.c,build/obj/tool/%.o,$(TOOLS_SRC) $(ENCODER_SRC) $(TOOL_CORE))
UNIT_SRC  := $(wildcard test/unit/*.c)
UNIT_OBJ  := $(patsubst %.c,build/obj/unit/%.o,$(UNIT_SRC) $(ENCODER_SRC) $(ENGINE_SRC))

all: build/libgotrace.so build/gotrace

build/libgotrace.so: $(LIB_OBJ)
	$(CC) $(LDFLAGS) -shared -o $@ $^ -Wl,-z,nodelete -Wl,--no-undefined $(LIBS)

build/gotrace: $(TOOL_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ -ldw -lelf -lz -lm

build/obj/lib/%.o: %.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LIBFLAGS) -c -o $@ $<

# -fno-ipa-icf: each wrapper names itself in stacks (GT_SITE), so two wrappers
# with the same body (sched_yield, pthread_yield) must stay two functions.
build/obj/lib/interpose/%.o: interpose/%.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LIBFLAGS) -fno-ipa-icf -c -o $@ $<

# The tools take the builder's CPPFLAGS (a package's _FORTIFY_SOURCE); the
# library does not: it exports libc's fortified stdio entry points itself
# (interpose/stdio.c), and its own calls must reach libc's plain ones.
build/obj/tool/%.o: %.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(BASE) -c -o $@ $<

# The version reaches the tool through this object only (a new VERSION
# rebuilds it).
build/obj/tool/tools/version.o: VERSION
build/obj/tool/tools/version.o: BASE += -DGOTRACE_VERSION='"$(VERSION)"' -DGOTRACE_MULTIARCH='"$(MULTIARCH)"' 

build/obj/unit/%.o: %.c $(wildcard */*.h test/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(BASE) -c -o $@ $<

# The engine in the unit tests: the library's flags (initial-exec TLS, no
# builtin malloc rewrites, unwind tables), in an executable.
build/obj/unit/core/%.o: core/%.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LIBFLAGS) -c -o $@ $<

# test_heap_sources.c includes the heap tool's modules (tools/ is not linked
# into the unit tests).
build/obj/unit/test/unit/test_heap_sources.o: $(wildcard tools/heap_*.c tools/heap_*.h tools/gen_tables.c tools/gen_tables.h tools/replay.c tools/replay.h tools/progress.c tools/progress.h tools/pprof.c tools/pprof.h tools/gzip.c tools/gzip.h tools/site_pprof.c tools/site_pprof.h)

build/obj/unit/test/unit/test_stat_sources.o: $(wildcard tools/stat_*.c tools/stat_*.h tools/gen_tables.h tools/replay.h tools/ident.h tools/rank_list.c tools/rank_list.h)

build/obj/unit/test/unit/test_mutex_sources.o: $(wildcard tools/mutex_*.c tools/mutex_*.h tools/stat_acct.h tools/stat_site.h tools/rank_list.h tools/site_pprof.h)

build/obj/unit/test/unit/test_cpu_sources.o: $(wildcard tools/cpu_*.c tools/cpu_*.h tools/stat_acct.h tools/stat_site.h tools/mutex_report.h tools/rank_list.h tools/site_pprof.h)

build/obj/unit/test/unit/test_map_sources.o: $(wildcard tools/map_*.c tools/map_*.h tools/heap_acct.h tools/replay.h tools/rank_list.h tools/site_pprof.h tools/stat_site.h)

build/obj/unit/test/unit/test_run_sources.o: $(wildcard tools/ident.* tools/outname.* tools/probe.* tools/run_report.* tools/units.*)

build/unit-tests: $(UNIT_OBJ)
	$(CC) -o $@ $^ -lcriterion $(LIBS) -lm

# The share of the library's own functions linked into the unit tests
# (unit-coverage), and, with a gcov build of them, the share they run
# (unit-coverage-run).
unit-coverage: build/libgotrace.so build/unit-tests
	bash scripts/unit-coverage.sh

COV_OBJ := $(patsubst build/obj/unit/%,build/obj/cov/%,$(UNIT_OBJ))

build/obj/cov/%.o: %.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(BASE) --coverage -c -o $@ $<

build/obj/cov/core/%.o: core/%.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LIBFLAGS) --coverage -c -o $@ $<

build/unit-tests-cov: $(COV_OBJ)
	$(CC) --coverage -o $@ $^ -lcriterion $(LIBS) -lm

unit-coverage-run: build/libgotrace.so build/unit-tests build/unit-tests-cov
	bash scripts/unit-coverage.sh --run

deps:
	bash scripts/install-deps.sh

unit: build/libgotrace.so build/unit-tests
	build/unit-tests --jobs 2
	bash scripts/unit-coverage.sh

integration: all
	$(PYTHON) test/integration/run.py

# test and demo are the README's two commands: on a fresh Debian 12 machine
# they install what is missing first (scripts/install-deps.sh is idempotent).
test: deps
	$(MAKE) all build/unit-tests
	build/unit-tests --jobs 2
	bash scripts/unit-coverage.sh
	$(PYTHON) test/integration/run.py

bench-deps: deps
	bash scripts/install-bench-deps.sh

bench: deps bench-deps
	$(MAKE) all
	$(PYTHON) test/bench/run.py

demo: deps
	$(MAKE) all
	bash scripts/demo.sh

# install: everything a user and a build system need. `gotrace run` finds the
# library relative to its own path (tools/locate.c), so a tree installed under
# DESTDIR works where it lies, and after the source tree is gone.
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/gotrace $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 755 build/gotrace $(DESTDIR)$(PREFIX)/bin/gotrace
	install -m 644 build/libgotrace.so $(DESTDIR)$(LIBDIR)/gotrace/libgotrace.so
	install -m 644 include/gotrace.h $(DESTDIR)$(PREFIX)/include/gotrace.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@VERSION@|$(VERSION)|' \
		packaging/gotrace.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/gotrace.pc
	chmod 644 $(DESTDIR)$(LIBDIR)/pkgconfig/gotrace.pc
	sed -e 's|^\(\.TH GOTRACE 1 "[^"]*"\) "gotrace [^"]*"|\1 "gotrace $(VERSION)"|' \
		docs/gotrace.1 > $(DESTDIR)$(PREFIX)/share/man/man1/gotrace.1
	chmod 644 $(DESTDIR)$(PREFIX)/share/man/man1/gotrace.1
	install -m 644 packaging/gotrace.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/gotrace

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/gotrace $(DESTDIR)$(LIBDIR)/gotrace/libgotrace.so \
		$(DESTDIR)$(PREFIX)/include/gotrace.h $(DESTDIR)$(LIBDIR)/pkgconfig/gotrace.pc \
		$(DESTDIR)$(PREFIX)/share/man/man1/gotrace.1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/gotrace
	-rmdir $(DESTDIR)$(LIBDIR)/gotrace

# deb: a binary package built by debhelper from a copy of the sources
# (packaging/debian; the changelog is written from VERSION), then lintian.
deb:
	bash scripts/make-deb.sh $(VERSION)

# Fuzz the trace reader and the heap accounting (clang + libFuzzer); the
# corpus in test/fuzz/corpus is replayed by the unit tests.
fuzz:
	bash test/fuzz/run.sh $(or $(FUZZ_SECONDS),150)

clean:
	rm -rf build

.PHONY: all deps bench-deps unit unit-coverage unit-coverage-run integration test bench demo install uninstall deb fuzz clean
