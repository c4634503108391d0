/* test_fuzz_corpus.c — replays every input of test/fuzz/corpus through the
 * reader, its cursors and the `gotrace heap` accounting (test/fuzz/fuzz_one.h)
 * in the normal build: none may crash, and the valid traces among them must
 * read to a clean end. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "test/fuzz/fuzz_one.h"

/* corpus_dir finds test/fuzz/corpus from the working directory (the
 * repository, where `make` runs the tests) or from build/unit-tests. */
static int corpus_dir(char *buf, size_t len)
{
	if (access("test/fuzz/corpus", R_OK) == 0)
		return snprintf(buf, len, "test/fuzz/corpus") < (int)len ? 0 : -1;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	for (int up = 0; up < 2; up++) {
		char *slash = strrchr(exe, '/');
		if (!slash)
			return -1;
		*slash = '\0';
	}
	return snprintf(buf, len, "%s/test/fuzz/corpus", exe) < (int)len ? 0 : -1;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "%s", path);
	size_t cap = 4096, len = 0;
	uint8_t *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	cr_assert_not_null(buf);
	*n = len;
	return buf;
}

Test(fuzz_corpus, every_input_replays_without_a_crash)
{
	char dir[PATH_MAX];
	cr_assert_eq(corpus_dir(dir, sizeof dir), 0, "test/fuzz/corpus not found");
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "%s", dir);
	struct dirent *e;
	unsigned inputs = 0, valid = 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char path[PATH_MAX + 256];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		size_t n;
		uint8_t *data = slurp(path, &n);
		int failed = fuzz_one(data, n);
		/* Seeds named valid-* are traces the reader must accept. */
		if (strncmp(e->d_name, "valid-", 6) == 0) {
			cr_assert_eq(failed, 0, "%s was rejected", path);
			valid++;
		}
		free(data);
		inputs++;
	}
	closedir(d);
	cr_assert_geq(inputs, 5, "only %u inputs in %s", inputs, dir);
	cr_assert_geq(valid, 3, "only %u valid-* traces in %s", valid, dir);
}
