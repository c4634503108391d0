/* dlgone: frames in a library that was dlclose'd before its generation was
 * written keep their names (issue 15, item 4).
 *
 * argv[1..3]: the variants a, b and c of dlgone_lib.c, built as shared
 * libraries. In order: a is opened, waits 30 ms for a mutex in its own
 * functions and is closed; b (another layout) is opened — usually inside
 * a's old range: a and b are 8 and 2 MiB long —, waits the same way and stays
 * open; c is opened, waits, is closed and its file deleted. Then main
 * sleeps 60 ms, past a few generations when
 * GOTRACE_PERIOD is short; without it every stack is written at exit,
 * long after a and c were unloaded. Prints whether b's code lies inside
 * a's old range (then b's PCs must not be named as a's, nor a's as b's). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdint.h>
#include <unistd.h>

#include "check.h"

struct range {
	uintptr_t base, lo, hi;
};

static int range_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct range *r = arg;
	if (info->dlpi_addr != r->base)
		return 0;
	r->lo = UINTPTR_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < r->lo)
			r->lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > r->hi)
			r->hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	return 1;
}

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static sem_t held;

static void *holder(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	sem_post(&held);
	usleep(30000);
	pthread_mutex_unlock(&m);
	return NULL;
}

NOINLINE static void *call_in(const char *path, const char *fn_name, uintptr_t *base)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL, dlerror());
	int (*fn)(pthread_mutex_t *) = (int (*)(pthread_mutex_t *))dlsym(h, fn_name);
	CHECK(fn != NULL, fn_name);
	Dl_info info;
	CHECK(dladdr((void *)fn, &info) != 0, "dladdr");
	*base = (uintptr_t)info.dli_fbase;
	pthread_t t;
	CHECK(pthread_create(&t, NULL, holder, NULL) == 0, "pthread_create");
	while (sem_wait(&held) != 0)
		;
	CHECK(fn(&m) == 0, "the library's lock");
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	return h;
}

int main(int argc, char **argv)
{
	CHECK(argc == 4, "usage: dlgone liba.so libb.so libc.so");
	uintptr_t a, b, c;
	CHECK(sem_init(&held, 0, 0) == 0, "sem_init");
	void *ha = call_in(argv[1], "dlgone_a_wait", &a);
	struct range ra = { a, 0, 0 };
	dl_iterate_phdr(range_cb, &ra);
	CHECK(ra.hi > ra.lo, "a's range");
	CHECK(dlclose(ha) == 0, "dlclose a");
	void *hb = call_in(argv[2], "dlgone_b_wait", &b);
	uintptr_t b_code = (uintptr_t)dlsym(hb, "dlgone_b_wait");
	void *hc = call_in(argv[3], "dlgone_c_wait", &c);
	CHECK(dlclose(hc) == 0, "dlclose c");
	CHECK(unlink(argv[3]) == 0, "unlink c");
	usleep(60000);
	printf("b's code inside a's old range: %s\n", b_code >= ra.lo && b_code < ra.hi ? "yes" : "no");
	printf("done\n");
	fflush(stdout);
	(void)hb;
	return 0;
}
