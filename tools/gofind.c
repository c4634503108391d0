/* gofind.c — see gofind.h. */
#include "tools/gofind.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tools/locate.h"

extern char **environ;

#define ASK_TIMEOUT_MS 10000 /* a Go that does not answer in 10 s is skipped */

int tool_go_parse_version(const char *s, int *minor, int *patch)
{
	const char *v = strstr(s, "go1.");
	if (!v)
		return -1;
	char *end;
	long mi = strtol(v + 4, &end, 10);
	if (end == v + 4 || mi < 0 || mi > 1000)
		return -1;
	long pa = 0;
	if (*end == '.')
		pa = strtol(end + 1, NULL, 10);
	*minor = (int)mi;
	*patch = pa < 0 ? 0 : (int)pa;
	return 0;
}

/* ask runs `go env GOVERSION` (GOTOOLCHAIN=local) and reads its first line. */
static int ask_version(const char *go, char *out, size_t len)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return -1;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	setenv("GOTOOLCHAIN", "local", 1);
	char *argv[] = { (char *)go, "env", "GOVERSION", NULL };
	pid_t pid;
	int err = posix_spawn(&pid, go, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (err != 0) {
		close(fds[0]);
		return -1;
	}
	size_t n = 0;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		long ms = (long)(t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		if (ms >= ASK_TIMEOUT_MS || poll(&pfd, 1, (int)(ASK_TIMEOUT_MS - ms)) == 0) {
			kill(pid, SIGKILL);
			n = 0;
			break;
		}
		ssize_t got = read(fds[0], out + n, len - 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0 || (n += (size_t)got) >= len - 1)
			break;
	}
	close(fds[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	out[n] = '\0';
	out[strcspn(out, "\r\n")] = '\0';
	return n > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

struct search {
	struct tool_go *best;
	bool found;
	char seen[16][PATH_MAX]; /* real paths already asked */
	int nseen;
	char *looked;
	size_t looked_len, used;
};

static void note_looked(struct search *s, const char *where)
{
	if (s->looked && s->used < s->looked_len)
		s->used += (size_t)snprintf(s->looked + s->used, s->looked_len - s->used, "%s%s",
					    s->used ? ", " : "", where);
}

static void consider(struct search *s, const char *go)
{
	char real[PATH_MAX], v[64];
	if (access(go, X_OK) != 0 || realpath(go, real) == NULL)
		return;
	for (int i = 0; i < s->nseen; i++)
		if (strcmp(s->seen[i], real) == 0)
			return;
	if (s->nseen < 16)
		snprintf(s->seen[s->nseen++], PATH_MAX, "%s", real);
	int minor, patch;
	if (ask_version(go, v, sizeof v) != 0 || tool_go_parse_version(v, &minor, &patch) != 0)
		return;
	if (s->found && (minor < s->best->minor || (minor == s->best->minor && patch <= s->best->patch)))
		return;
	s->found = true;
	snprintf(s->best->path, sizeof s->best->path, "%s", go);
	snprintf(s->best->version, sizeof s->best->version, "%s", v);
	s->best->minor = minor;
	s->best->patch = patch;
}

int tool_go_find(struct tool_go *best, char *looked, size_t looked_len)
{
	struct search s = { .best = best, .looked = looked, .looked_len = looked_len };
	if (looked && looked_len)
		looked[0] = '\0';
	const char *forced = getenv("GOTRACE_GO");
	if (forced && *forced) {
		note_looked(&s, "GOTRACE_GO");
		consider(&s, forced);
		return s.found ? 0 : -1;
	}
	char path[PATH_MAX];
	note_looked(&s, "PATH");
	if (tool_which("go", path, sizeof path) == 0)
		consider(&s, path);
	const char *globs = getenv("GOTRACE_GO_SEARCH");
	if (!globs || !*globs)
		globs = TOOL_GO_SEARCH_DEFAULT;
	char *copy = strdup(globs), *save = NULL;
	for (char *g = copy ? strtok_r(copy, ":", &save) : NULL; g; g = strtok_r(NULL, ":", &save)) {
		note_looked(&s, g);
		glob_t gl;
		if (glob(g, 0, NULL, &gl) == 0)
			for (size_t i = 0; i < gl.gl_pathc; i++)
				consider(&s, gl.gl_pathv[i]);
		globfree(&gl);
	}
	free(copy);
	return s.found ? 0 : -1;
}

const char *tool_go_package(int minor)
{
	/* What Debian ships: Go 1.23 in bookworm-backports, the newest in
	 * trixie-backports; Debian 13's own golang-go is 1.24. */
	return minor <= 23 ? "golang-1.23-go (Debian 12: bookworm-backports) or golang-go (Debian 13)"
			   : "golang-1.27-go (trixie-backports)";
}
