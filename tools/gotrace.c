/* gotrace.c — the gotrace command: dispatches argv[1] to a command of the
 * table (tools/cmd_help.c). */
#include <stdio.h>
#include <string.h>

#include "tools/cmd.h"
#include "tools/version.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		tool_print_usage(stderr);
		return TOOL_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
		printf("gotrace %s\n", tool_version);
		return 0;
	}
	if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0)
		name = "help";

	const struct tool_command *cmd = tool_command_find(name);
	if (cmd == NULL) {
		fprintf(stderr, "gotrace: unknown command \"%s\"\n", name);
		tool_print_usage(stderr);
		return TOOL_EXIT_USAGE;
	}
	return cmd->main(argc - 1, argv + 1);
}
