/* test_mutex_sources.c — compiles the modules of `gotrace mutex` (and of
 * the lock holders' section of `gotrace stat`) into build/unit-tests, as
 * test_stat_sources.c does for stat's (the Makefile does not link tools/). */
#include "tools/mutex_acct.c"
#include "tools/mutex_report.c"
#include "tools/mutex_pprof.c"
