/* test_map_sources.c — compiles the mapped memory modules of `gotrace heap`
 * and `gotrace stat` (tools/map_acct.h) into build/unit-tests.
 *
 * The Makefile links the .c files of test/unit, encoder and the pure core
 * files into the unit tests, not those of tools, so the modules under test
 * are included here, once; the modules they use (heap_acct.c, replay.c,
 * site_pprof.c, rank_list.c, stat_site.c, ...) are compiled in by
 * test_heap_sources.c and test_stat_sources.c. Make sees these includes
 * through the Makefile's line for this file. */
#include "tools/map_acct.c"
#include "tools/map_pprof.c"
#include "tools/map_report.c"
