/* cmd.h — what a gotrace command is, the exit statuses the commands share,
 * and the table of commands.
 *
 * To add a command: write tools/cmd_NAME.c defining `const struct
 * tool_command tool_cmd_NAME`, declare it below, and add it to tool_commands
 * in tools/cmd_help.c. `gotrace help` lists it from there, and gotrace.c
 * dispatches to it. */
#ifndef TOOLS_CMD_H
#define TOOLS_CMD_H

#include <stdio.h>

/* Exit statuses of the tool itself (a traced program's status passes through). */
#define TOOL_EXIT_USAGE 2      /* bad flag or value, unknown command, untraceable program */
#define TOOL_EXIT_NOTRACE 2    /* stat, heap: the file holds no complete generation */
#define TOOL_EXIT_NOEXEC 126   /* found but cannot be executed, like a shell */
#define TOOL_EXIT_NOTFOUND 127 /* not found, like a shell */

struct tool_command {
	const char *name;    /* argv[1] */
	const char *summary; /* one line for the command list */
	const char *usage;   /* what follows "usage: " */
	void (*help)(FILE *out); /* options, notes and examples after the usage line */
	int (*main)(int argc, char **argv); /* argv[0] is the command name; returns the exit status */
};

/* tool_command_help prints a command's usage line and its help (its -help). */
static inline void tool_command_help(FILE *out, const struct tool_command *cmd)
{
	fprintf(out, "usage: %s\n\n", cmd->usage);
	if (cmd->help)
		cmd->help(out);
}

extern const struct tool_command tool_cmd_run;
extern const struct tool_command tool_cmd_heap;
extern const struct tool_command tool_cmd_stat;
extern const struct tool_command tool_cmd_mutex;
extern const struct tool_command tool_cmd_cpu;
extern const struct tool_command tool_cmd_view;
extern const struct tool_command tool_cmd_help;

/* The table `gotrace help` lists and gotrace.c dispatches through
 * (cmd_help.c): tool_commands holds every command in help order,
 * NULL-terminated; tool_command_find returns the one called name, or NULL;
 * tool_print_usage prints the short "usage: ..." block. */
extern const struct tool_command *const tool_commands[];
const struct tool_command *tool_command_find(const char *name);
void tool_print_usage(FILE *out);

#endif
