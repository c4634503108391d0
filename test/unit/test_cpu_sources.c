/* test_cpu_sources.c — compiles the modules of `gotrace cpu` (and of the
 * CPU samples section of `gotrace stat`) into build/unit-tests, as
 * test_mutex_sources.c does for mutex's (the Makefile does not link tools/). */
#include "tools/cpu_acct.c"
#include "tools/cpu_report.c"
#include "tools/cpu_pprof.c"
