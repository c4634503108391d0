/* test_run_sources.c — compiles the modules of `gotrace run`'s report
 * (file names, process identity, probe, report) into build/unit-tests.
 *
 * The Makefile links the .c files of test/unit, encoder and the pure core
 * files into the unit tests, not those of tools, so the modules under test
 * are included here, once; tools/stat_read.c (test_stat_sources.c) uses
 * tools/ident.c from here. cmd_run.c is left out: it needs the command
 * table of tools/cmd_help.c. */
#include "tools/ident.c"
#include "tools/outname.c"
#include "tools/probe.c"
#include "tools/run_report.c"
#include "tools/units.c"
