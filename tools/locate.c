/* locate.c — finds libgotrace.so beside the gotrace executable, and a command on PATH. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/locate.h"
#include "tools/version.h"

static bool is_regular(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int tool_find_preload(char *buf, size_t len)
{
	/* Relative to this executable: the build tree, then an installed prefix
	 * (make install's LIBDIR: Debian's multiarch directory, else lib). No
	 * absolute path is built in, so a tree installed under DESTDIR, or moved,
	 * still finds its own library. */
	char multi[128];
	snprintf(multi, sizeof multi, "../lib/%s/gotrace/libgotrace.so", tool_multiarch);
	const char *const rel[] = { "libgotrace.so", *tool_multiarch ? multi : NULL,
				    "../lib/gotrace/libgotrace.so" };
	char exe[PATH_MAX], cand[PATH_MAX + 192], real[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

	if (len == 0)
		return -1;
	buf[0] = '\0';
	if (n <= 0) {
		snprintf(buf, len, "libgotrace.so (cannot read /proc/self/exe: %s)", strerror(errno));
		return -1;
	}
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';

	size_t used = 0;
	for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
		if (!rel[i])
			continue;
		snprintf(cand, sizeof cand, "%s/%s", exe, rel[i]);
		if (is_regular(cand) && realpath(cand, real) != NULL) {
			if ((size_t)snprintf(buf, len, "%s", real) >= len)
				return -1;
			return 0;
		}
		/* Remember where we looked, for the caller's message, with "dir/.." folded. */
		const char *dir = realpath(exe, real) ? real : exe;
		const char *file = rel[i];
		int dirlen = (int)strlen(dir);
		if (strncmp(file, "../", 3) == 0) {
			const char *up = strrchr(dir, '/');
			dirlen = up ? (int)(up - dir) : dirlen;
			file += 3;
		}
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%.*s/%s",
						 used ? " or " : "", dirlen, dir, file);
	}
	return -1;
}

/* check_file says whether path can be run: 0, or the shell-style exit status.
 * On a PATH search a directory does not count as found (bash skips them). */
static int check_file(const char *path, bool searching)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return errno == ENOENT || errno == ENOTDIR ? TOOL_EXIT_NOTFOUND : TOOL_EXIT_NOEXEC;
	if (searching && S_ISDIR(st.st_mode))
		return TOOL_EXIT_NOTFOUND;
	if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0)
		return TOOL_EXIT_NOEXEC;
	return 0;
}

int tool_which(const char *cmd, char *buf, size_t len)
{
	if (len == 0 || *cmd == '\0')
		return TOOL_EXIT_NOTFOUND;
	if (strchr(cmd, '/')) {
		if ((size_t)snprintf(buf, len, "%s", cmd) >= len)
			return TOOL_EXIT_NOTFOUND;
		return check_file(buf, false);
	}

	/* Like execvp: an unset PATH means the system default; an empty entry means ".". */
	char defpath[256];
	const char *path = getenv("PATH");
	if (path == NULL) {
		size_t n = confstr(_CS_PATH, defpath, sizeof defpath);
		path = n > 0 && n <= sizeof defpath ? defpath : "/bin:/usr/bin";
	}
	int result = TOOL_EXIT_NOTFOUND;
	for (const char *p = path;; p++) {
		const char *end = strchrnul(p, ':');
		int dirlen = (int)(end - p);
		int n = dirlen ? snprintf(buf, len, "%.*s/%s", dirlen, p, cmd)
			       : snprintf(buf, len, "%s", cmd);
		if (n > 0 && (size_t)n < len) {
			int r = check_file(buf, true);
			if (r == 0)
				return 0;
			/* Keep looking, but remember that something was there. */
			if (r == TOOL_EXIT_NOEXEC)
				result = TOOL_EXIT_NOEXEC;
		}
		if (*end == '\0')
			break;
		p = end;
	}
	snprintf(buf, len, "%s", cmd);
	return result;
}
