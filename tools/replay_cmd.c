/* replay_cmd.c — the command-line code `gotrace heap` and `gotrace stat` share
 * (replay_cmd.h); apart from replay.c, which the unit tests compile in
 * without the command table. */
#include "tools/replay_cmd.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cmd.h"

int tool_replay_usage_error(const char *cmd, const char *usage, const char *fmt, const char *arg)
{
	fprintf(stderr, "gotrace %s: ", cmd);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nusage: %s\n", usage);
	return TOOL_EXIT_USAGE;
}

int tool_replay_parse_top(const char *s, bool plus_ok, unsigned *top)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (!*s || *end || errno || s[0] == '-' || (!plus_ok && s[0] == '+') || v > 1000000)
		return -1;
	*top = (unsigned)v;
	return 0;
}

FILE *tool_replay_open_trace(const char *cmd, const char *usage, int argc, char **argv, int optind, int *status)
{
	if (optind != argc - 1) {
		*status = tool_replay_usage_error(cmd, usage,
						optind < argc ? "one trace file please, got \"%s\" and more"
							      : "which trace? (missing TRACE)%s",
						optind < argc ? argv[optind + 1] : "");
		return NULL;
	}
	const char *path = argv[optind];
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "gotrace %s: cannot open %s: %s\n", cmd, path, strerror(errno));
		*status = 1;
	}
	return f;
}

FILE *tool_replay_args(const struct tool_replay_cmd *rc, int argc, char **argv, unsigned *top,
		       const char **value, bool *flag, const char **path, int *status)
{
	return tool_replay_args2(rc, argc, argv, top, value, flag, NULL, path, status);
}

FILE *tool_replay_args2(const struct tool_replay_cmd *rc, int argc, char **argv, unsigned *top,
			const char **value, bool *flag, const char **value2, const char **path, int *status)
{
	const struct option opts[] = {
		{ rc->opt, rc->opt_value ? required_argument : no_argument, NULL, 'x' },
		{ "top", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ rc->opt2 && value2 ? rc->opt2 : NULL, required_argument, NULL, 'y' },
		{ NULL, 0, NULL, 0 },
	};
	char what[80];
	int c;
	opterr = 0;
	optind = 1;
	*status = 0;
	while ((c = getopt_long_only(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'x':
			if (rc->opt_value)
				*value = optarg;
			else
				*flag = true;
			break;
		case 'y': *value2 = optarg; break;
		case 't':
			if (tool_replay_parse_top(optarg, rc->plus_ok, top)) {
				snprintf(what, sizeof what, "-top wants a number of %s (0 = all), not \"%%s\"", rc->top_what);
				*status = tool_replay_usage_error(rc->name, rc->usage, what, optarg);
				return NULL;
			}
			break;
		case 'h': tool_command_help(stdout, rc->cmd); return NULL;
		case ':': *status = tool_replay_usage_error(rc->name, rc->usage, "option %s needs a value", argv[optind - 1]); return NULL;
		default: *status = tool_replay_usage_error(rc->name, rc->usage, "bad option \"%s\"", argv[optind - 1]); return NULL;
		}
	}
	*path = argv[optind < argc ? optind : 0];
	return tool_replay_open_trace(rc->name, rc->usage, argc, argv, optind, status);
}

bool tool_replay_empty(FILE *f)
{
	int c = getc(f);
	if (c == EOF)
		return !ferror(f);
	ungetc(c, f);
	return false;
}

int tool_replay_no_generation(const char *cmd, const char *name, bool empty, int version, const char *err)
{
	/* Not about the file: the machine's trouble, as before. */
	if (err && (strncmp(err, "read error", 10) == 0 || strncmp(err, "out of memory", 13) == 0)) {
		fprintf(stderr, "gotrace %s: %s: %s\n", cmd, name, err);
		return 1;
	}
	if (empty)
		fprintf(stderr, "gotrace %s: %s: holds no complete generation: the file is empty\n", cmd, name);
	else if (version == 0)
		fprintf(stderr, "gotrace %s: %s: %s\n", cmd, name, err);
	else if (err == NULL)
		fprintf(stderr, "gotrace %s: %s: holds no complete generation: the traced process ended "
				"before its first generation was written\n", cmd, name);
	else
		fprintf(stderr, "gotrace %s: %s: holds no complete generation: %s\n", cmd, name, err);
	return TOOL_EXIT_NOTRACE;
}
