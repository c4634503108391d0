/* test_heap_sources.c — compiles the modules of `gotrace heap` into
 * build/unit-tests.
 *
 * The Makefile links the .c files of test/unit, encoder and the pure core
 * files into the unit tests, not those of tools, so the modules under test are included
 * here, once (their static names do not clash). Make does not see these
 * includes: after editing one of these files, rebuild with
 * `touch test/unit/test_heap_sources.c` (or `make clean`). */
#include "tools/gen_tables.c"
#include "tools/gzip.c"
#include "tools/heap_acct.c"
#include "tools/heap_map.c"
#include "tools/heap_pprof.c"
#include "tools/heap_report.c"
#include "tools/heap_sample.c"
#include "tools/heap_sites.c"
#include "tools/pprof.c"
#include "tools/progress.c"
#include "tools/replay.c"
#include "tools/site_pprof.c"
