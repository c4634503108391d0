/* profile_cmd.c — a command that reads a trace into stat's accounting,
 * prints a report and may write a pprof profile (profile_cmd.h). */
#include "tools/profile_cmd.h"

#include <stdbool.h>

#include "tools/gzip.h"
#include "tools/stat_load.h"

int tool_profile_save(const char *cmd, const char *path, struct tool_pprof *p, int built)
{
	if (built) {
		fprintf(stderr, "gotrace %s: out of memory while building the profile\n", cmd);
		return -1;
	}
	int rc = tool_gzip_save(cmd, path, p->out.buf, p->out.len);
	tool_pprof_free(p);
	return rc;
}

int tool_profile_cmd_main(const struct tool_replay_cmd *args, unsigned top, tool_profile_report_fn report,
			  tool_profile_build_fn build, int argc, char **argv)
{
	const char *pprof = NULL;
	const char *path = NULL;
	int status;
	FILE *f = tool_replay_args(args, argc, argv, &top, &pprof, NULL, &path, &status);
	if (!f)
		return status;
	const char *name = f == stdin ? "(standard input)" : path;
	bool failed;
	int rc;
	struct tool_stat *s = tool_stat_load(args->name, f, name, &failed, &rc);
	if (!s)
		return rc;
	rc = failed;
	if (failed)
		printf("(the trace is truncated or malformed after generation %llu; this profile covers\n"
		       " its complete generations only)\n\n",
		       (unsigned long long)s->last_gen);
	if (report(stdout, s, name, top))
		rc = 1;
	fflush(stdout);
	if (pprof) {
		struct tool_pprof p;
		int built = build(s, name, &p);
		if (tool_profile_save(args->name, pprof, &p, built))
			rc = 1;
	}
	if (failed)
		fprintf(stderr, "gotrace %s: %s: %s\n", args->name, name, s->err);
	tool_stat_drop(s);
	return rc;
}
