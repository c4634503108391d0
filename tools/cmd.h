/* cmd.h — the gotrace subcommand table and the helpers files in tools/ share.
 *
 * To add a subcommand: write tools/cmd_NAME.c defining `const struct
 * tool_command tool_cmd_NAME`, declare it below, and add it to tool_commands in
 * tools/gotrace.c. `gotrace help` lists it from there. */
#ifndef TOOLS_CMD_H
#define TOOLS_CMD_H

#include <stddef.h>
#include <stdio.h>

#ifndef GOTRACE_VERSION
#define GOTRACE_VERSION "0.1.0"
#endif

/* Exit statuses of the tool itself (a traced program's status passes through). */
#define TOOL_EXIT_USAGE 2        /* bad flag or value, unknown command, untraceable program */
#define TOOL_EXIT_NOTRACE 2      /* stat, heap: the file holds no complete generation */
#define TOOL_EXIT_NOEXEC 126     /* found but cannot be executed, like a shell */
#define TOOL_EXIT_NOTFOUND 127   /* not found, like a shell */

struct tool_command {
	const char *name;    /* argv[1] */
	const char *summary; /* one line for the command list */
	const char *usage;   /* what follows "usage: " */
	void (*help)(FILE *out); /* options, notes and examples after the usage line */
	int (*main)(int argc, char **argv); /* argv[0] is the command name; returns the exit status */
};

extern const struct tool_command tool_cmd_run;
extern const struct tool_command tool_cmd_heap;
extern const struct tool_command tool_cmd_stat;
extern const struct tool_command tool_cmd_help;

/* tool_commands lists every command in help order, NULL-terminated (gotrace.c). */
extern const struct tool_command *const tool_commands[];

/* tool_command_find returns the command called name, or NULL. */
const struct tool_command *tool_command_find(const char *name);

/* tool_print_usage prints the short "usage: ..." block (cmd_help.c). */
void tool_print_usage(FILE *out);

/* tool_print_command_help prints a command's usage line and help (cmd_help.c). */
void tool_print_command_help(FILE *out, const struct tool_command *cmd);

/* tool_find_preload finds libgotrace.so next to this executable: DIR/libgotrace.so
 * (build tree) or DIR/../lib/gotrace/libgotrace.so (installed). Writes its
 * absolute path to buf and returns 0, or returns -1 and writes the places it
 * looked to buf, e.g. "/a/libgotrace.so or /lib/gotrace/libgotrace.so" (locate.c). */
int tool_find_preload(char *buf, size_t len);

/* tool_which finds cmd the way execvp would (PATH search unless cmd has a '/').
 * Returns 0 with the file's path in buf, TOOL_EXIT_NOTFOUND when nothing exists,
 * or TOOL_EXIT_NOEXEC when a candidate exists but is not an executable file
 * (locate.c). */
int tool_which(const char *cmd, char *buf, size_t len);

/* tool_elf_is_static returns 1 when path is an ELF executable that the dynamic
 * loader never handles (static, or static-pie), so LD_PRELOAD has no effect;
 * 0 for dynamic executables, scripts, other files and unreadable files
 * (elf_kind.c). */
int tool_elf_is_static(const char *path);

#endif
