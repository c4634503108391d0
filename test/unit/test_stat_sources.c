/* test_stat_sources.c — compiles the modules of `gotrace stat` into
 * build/unit-tests.
 *
 * The Makefile links the .c files of test/unit, encoder and the pure core
 * files into the unit tests, not those of tools, so the modules under test
 * are included here, once. They use the hash map and the site interning of
 * `gotrace heap` (tools/heap_map.c, tools/heap_sites.c), which
 * test_heap_sources.c already compiles in, as it does tools/replay.c and
 * tools/gen_tables.c. cmd_stat.c is left out: it needs
 * the command table of tools/cmd_help.c. Make does not see these includes:
 * after editing one of these files, `touch test/unit/test_stat_sources.c`
 * (or `make clean`). */
#include "tools/stat_acct.c"
#include "tools/stat_read.c"
#include "tools/stat_report.c"
#include "tools/stat_site.c"
#include "tools/rank_list.c"
