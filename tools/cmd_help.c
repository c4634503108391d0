/* cmd_help.c — `gotrace help [COMMAND]`: commands, environment variables and
 * examples; and the table of commands it lists, which gotrace.c dispatches
 * through. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/config.h"
#include "tools/cmd.h"
#include "tools/version.h"
#include "tools/locate.h"

const struct tool_command *const tool_commands[] = {
	&tool_cmd_run,
	&tool_cmd_view,
	&tool_cmd_heap,
	&tool_cmd_stat,
	&tool_cmd_mutex,
	&tool_cmd_cpu,
	&tool_cmd_help,
	NULL,
};

const struct tool_command *tool_command_find(const char *name)
{
	for (size_t i = 0; tool_commands[i] != NULL; i++)
		if (strcmp(tool_commands[i]->name, name) == 0)
			return tool_commands[i];
	return NULL;
}

static void print_commands(FILE *out)
{
	fprintf(out, "usage: gotrace COMMAND [ARGS...]\n\ncommands:\n");
	for (size_t i = 0; tool_commands[i] != NULL; i++)
		fprintf(out, "  %-6s %s\n", tool_commands[i]->name, tool_commands[i]->summary);
}

void tool_print_usage(FILE *out)
{
	print_commands(out);
	fprintf(out, "\nRun 'gotrace help' for the environment variables and examples,\n"
		     "'gotrace help COMMAND' for a command's options.\n");
}

/* print_environment prints every option from core/config's table. */
static void print_environment(FILE *out)
{
	fprintf(out, "environment (read once by libgotrace.so when the traced program starts;\n"
		     "a bad value is named in one line on stderr and the default is used;\n"
		     "an empty value counts as unset):\n");
	for (int i = 0; i < GT_OPT_COUNT; i++) {
		const struct gt_option_desc *d = &gt_config_options[i];
		fprintf(out, "  %-16s %s\n", d->name, d->help);
		fprintf(out, "  %-16s default %s\n", "", d->def);
	}
}

static void print_overview(FILE *out)
{
	char lib[PATH_MAX + 64];
	int found = tool_find_preload(lib, sizeof lib) == 0;

	fprintf(out, "gotrace %s: Go execution traces of unmodified multi-threaded C/C++ programs.\n"
		     "Each OS thread shows up as a goroutine; contended locks, condition variables,\n"
		     "joins and sleeps as blocking events; open the trace with `go tool trace`.\n"
		     "Every process started from the traced one writes a trace of its own;\n"
		     "`gotrace run` lists them all when the command ends (pid, program, size,\n"
		     "whether it is a trace) and names the one to open.\n\n",
		tool_version);
	print_commands(out);
	fprintf(out, "Run 'gotrace help COMMAND' for a command's options.\n\n");
	print_environment(out);
	fprintf(out, "\nlibrary: %s%s\n", found ? "" : "not found; looked for ", lib);
	fprintf(out, "\nexamples:\n"
		     "  gotrace run -o app.trace -- ./app arg...\n"
		     "  go tool trace app.trace\n"
		     "  go tool trace -pprof=sync app.trace > sync.pb && go tool pprof -http=: sync.pb\n"
		     "  LD_PRELOAD=%s GOTRACE_OUT=app.trace ./app arg...\n",
		found ? lib : "/path/to/libgotrace.so");
}

static int help_main(int argc, char **argv)
{
	if (argc < 2) {
		print_overview(stdout);
		return 0;
	}
	for (int i = 0; i < GT_OPT_COUNT; i++) {
		const struct gt_option_desc *d = &gt_config_options[i];
		if (strcmp(argv[1], d->name) == 0) {
			printf("%s\n  %s\n  default %s\n", d->name, d->help, d->def);
			return 0;
		}
	}
	const struct tool_command *cmd = tool_command_find(argv[1]);
	if (cmd == NULL) {
		fprintf(stderr, "gotrace: unknown command \"%s\"\n", argv[1]);
		tool_print_usage(stderr);
		return TOOL_EXIT_USAGE;
	}
	tool_command_help(stdout, cmd);
	return 0;
}

static void help_help(FILE *out)
{
	fprintf(out, "Without COMMAND: every command, every GOTRACE_* variable and examples.\n"
		     "With COMMAND: that command's options; with a GOTRACE_* variable: what it\n"
		     "sets and its default. `gotrace -h` and `gotrace --help` are the same as\n"
		     "`gotrace help`; `gotrace --version` prints the version.\n");
}

const struct tool_command tool_cmd_help = {
	.name = "help",
	.summary = "show this help, or a command's options (gotrace help COMMAND)",
	.usage = "gotrace help [COMMAND | VARIABLE]",
	.help = help_help,
	.main = help_main,
};
