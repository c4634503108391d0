/* readpos.c — see readpos.h. */
#include "tools/readpos.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_PROCS 4096 /* processes examined, at most */

struct proc {
	pid_t pid, ppid;
};

static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "pid (comm) state ppid ...": comm may hold spaces and parentheses. */
	char *close = strrchr(buf, ')');
	int ppid;
	return close && sscanf(close + 1, " %*c %d", &ppid) == 1 ? (pid_t)ppid : -1;
}

static int64_t position_in(pid_t pid, dev_t dev, ino_t ino)
{
	char dir[64], path[352];
	snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int64_t best = -1;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (stat(path, &st) != 0 || st.st_dev != dev || st.st_ino != ino)
			continue;
		snprintf(path, sizeof path, "/proc/%d/fdinfo/%s", (int)pid, e->d_name);
		FILE *f = fopen(path, "re");
		long long pos;
		if (f && fscanf(f, "pos: %lld", &pos) == 1 && pos > best)
			best = pos;
		if (f)
			fclose(f);
	}
	closedir(d);
	return best;
}

int64_t tool_read_position(pid_t root, dev_t dev, ino_t ino)
{
	struct proc *v = malloc(MAX_PROCS * sizeof *v);
	if (!v)
		return -1;
	size_t n = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && n < MAX_PROCS && (e = readdir(d)) != NULL) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		pid_t pp = parent_of((pid_t)pid);
		if (pp >= 0)
			v[n++] = (struct proc){ (pid_t)pid, pp };
	}
	if (d)
		closedir(d);

	/* Mark root's descendants (a few rounds: `go tool trace` is go -> trace). */
	bool *in = calloc(n ? n : 1, sizeof *in);
	int64_t best = position_in(root, dev, ino);
	for (int round = 0; in && round < 4; round++) {
		for (size_t i = 0; i < n; i++) {
			if (in[i])
				continue;
			bool child = v[i].ppid == root;
			for (size_t j = 0; !child && j < n; j++)
				child = in[j] && v[j].pid == v[i].ppid;
			if (child) {
				in[i] = true;
				int64_t p = position_in(v[i].pid, dev, ino);
				if (p > best)
					best = p;
			}
		}
	}
	free(in);
	free(v);
	return best;
}
