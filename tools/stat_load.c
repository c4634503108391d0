/* stat_load.c — a trace read into stat's accounting for a command (stat_load.h). */
#include "tools/stat_load.h"

#include <stdlib.h>

#include "tools/replay_cmd.h"

struct tool_stat *tool_stat_load(const char *cmd, FILE *f, const char *name, bool *failed, int *rc)
{
	struct tool_stat *s = malloc(sizeof *s);
	if (!s || tool_stat_init(s)) {
		fprintf(stderr, "gotrace %s: out of memory\n", cmd);
		if (s)
			tool_stat_free(s);
		free(s);
		if (f != stdin)
			fclose(f);
		*rc = 1;
		return NULL;
	}
	bool empty = tool_replay_empty(f);
	*failed = !empty && tool_stat_read(s, f) != 0;
	if (f != stdin)
		fclose(f);
	if (empty || s->gens == 0) {
		/* Nothing to report: one line, no empty tables. */
		*rc = tool_replay_no_generation(cmd, name, empty, s->version, *failed ? s->err : NULL);
		tool_stat_drop(s);
		return NULL;
	}
	*rc = 0;
	return s;
}

void tool_stat_drop(struct tool_stat *s)
{
	tool_stat_free(s);
	free(s);
}
