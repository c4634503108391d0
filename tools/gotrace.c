/* gotrace.c — the gotrace command: dispatches argv[1] to a subcommand from one table. */
#include <stdio.h>
#include <string.h>

#include "tools/cmd.h"

const struct gt_command *const gt_commands[] = {
	&gt_cmd_run,
	&gt_cmd_heap,
	&gt_cmd_stat,
	&gt_cmd_help,
	NULL,
};

const struct gt_command *gt_command_find(const char *name)
{
	for (size_t i = 0; gt_commands[i] != NULL; i++)
		if (strcmp(gt_commands[i]->name, name) == 0)
			return gt_commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		gt_print_usage(stderr);
		return GT_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
		printf("gotrace %s\n", GOTRACE_VERSION);
		return 0;
	}
	if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0)
		name = "help";

	const struct gt_command *cmd = gt_command_find(name);
	if (cmd == NULL) {
		fprintf(stderr, "gotrace: unknown command \"%s\"\n", name);
		gt_print_usage(stderr);
		return GT_EXIT_USAGE;
	}
	return cmd->main(argc - 1, argv + 1);
}
