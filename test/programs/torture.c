/* torture MODE ...: workloads for test/integration/test_torture.py.
 *
 *   threads N WAVE   N short-lived threads (start routine brief_main),
 *                    created and joined in waves of WAVE; prints the count
 *                    and a checksum; exit 0
 *   steady SECS NT   NT threads (steady_main) for SECS seconds: each keeps a
 *                    ring of live heap blocks of varying sizes (malloc/free,
 *                    some realloc/calloc), two per round, takes a shared
 *                    mutex now and then and sleeps 2 ms between rounds;
 *                    main starts and joins a short helper thread
 *                    (helper_main) every 50 ms.
 *                    Prints "steady: NT threads done"; exit 0
 *   spawn            two workers contend on a mutex while main starts
 *                    children five ways: vfork (+ dup2 of a pipe, exec),
 *                    posix_spawn, posix_spawnp, system, popen/pclose; each
 *                    child is this program in mode "child TAG"; plus a
 *                    vfork whose exec fails (_exit 127 in the child).
 *                    Prints what each child said and its status; exit 0
 *   child TAG        names its thread "c-TAG", runs two contending threads
 *                    briefly, prints "child TAG"; exit 0
 *   abort            a worker aborts after 300 ms while one thread waits on
 *                    a condition variable, one on a mutex, and main is
 *                    blocked in pthread_join: dies by SIGABRT
 *   exit_running     a worker calls exit(9) after 200 ms while two workers
 *                    keep running (malloc/free, lock/unlock, no waits), two
 *                    are blocked (condvar, mutex) and main waits in
 *                    pthread_join
 *   clone_exit LIB   a thread dlopens LIB, whose constructor takes 400 ms
 *                    (the thread holds the loader's lock meanwhile); main
 *                    makes a child with a raw clone (no fork handlers run)
 *                    that calls _exit(3) at once, and waits for it at most
 *                    3 s.  Prints how the child ended; exit 0 unless it hung
 *
 * Output on stdout is deterministic (never depends on timing). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <dlfcn.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static volatile int stop;
static const char *self_path;

static void check(const char *what, int err)
{
	if (err) {
		fprintf(stderr, "torture: %s: %s\n", what, strerror(err));
		exit(1);
	}
}

static void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static pthread_t start(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	check("pthread_create", pthread_create(&t, NULL, fn, arg));
	return t;
}

/* --- threads ------------------------------------------------------------ */

static long brief_total;

__attribute__((noinline)) static void *brief_main(void *arg)
{
	long n = (long)arg;
	pthread_mutex_lock(&mu);
	brief_total += n;
	pthread_mutex_unlock(&mu);
	return (void *)(n + 1);
}

static int run_threads(long total, int wave)
{
	pthread_t *t = calloc((size_t)wave, sizeof *t);
	long bad = 0, made = 0;
	for (long base = 0; base < total; base += wave) {
		int k = total - base < wave ? (int)(total - base) : wave;
		for (int i = 0; i < k; i++)
			t[i] = start(brief_main, (void *)(base + i));
		for (int i = 0; i < k; i++) {
			void *ret;
			if (pthread_join(t[i], &ret) != 0 || ret != (void *)(base + i + 1))
				bad++;
			made++;
		}
	}
	free(t);
	printf("threads: %ld\n", made);
	printf("total: %ld\n", brief_total);
	printf("bad joins: %ld\n", bad);
	return bad == 0 && brief_total == total * (total - 1) / 2 ? 0 : 1;
}

/* --- steady ------------------------------------------------------------- */

#define RING 256

static long shared_counter;

__attribute__((noinline)) static void *steady_main(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg * 2654435761u + 1;
	char *ring[RING] = { 0 };
	unsigned i = 0;
	while (!stop) {
		for (int k = 0; k < 2; k++, i++) {
			unsigned slot = i % RING;
			size_t size = 16 + (rand_r(&seed) % 4080);
			free(ring[slot]);
			if (i % 16 == 0) {
				ring[slot] = calloc(1, size);
			} else {
				ring[slot] = malloc(size);
				if (i % 8 == 1)
					ring[slot] = realloc(ring[slot], size * 2);
			}
			if (ring[slot])
				ring[slot][0] = (char)i;
		}
		if (i % 32 == 0) {
			pthread_mutex_lock(&mu);
			shared_counter++;
			pthread_mutex_unlock(&mu);
		}
		msleep(2);
	}
	for (int k = 0; k < RING; k++)
		free(ring[k]);
	return NULL;
}

__attribute__((noinline)) static void *helper_main(void *arg)
{
	char *p = malloc(100);
	pthread_mutex_lock(&mu);
	shared_counter++;
	pthread_mutex_unlock(&mu);
	free(p);
	return arg;
}

static int run_steady(double secs, int nt)
{
	pthread_t *t = calloc((size_t)nt, sizeof *t);
	for (int i = 0; i < nt; i++)
		t[i] = start(steady_main, (void *)(long)i);
	double end = now() + secs;
	while (now() < end) {
		pthread_join(start(helper_main, NULL), NULL);
		msleep(50);
	}
	stop = 1;
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	free(t);
	printf("steady: %d threads done\n", nt);
	return 0;
}

/* --- spawn -------------------------------------------------------------- */

__attribute__((noinline)) static void *contend_main(void *arg)
{
	while (!stop) {
		pthread_mutex_lock(&mu);
		void *p = malloc(64);
		usleep(200);
		free(p);
		pthread_mutex_unlock(&mu);
		usleep(100);
	}
	return arg;
}

static void report(const char *how, int st)
{
	if (WIFEXITED(st))
		printf("%s: exited %d\n", how, WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		printf("%s: killed by signal %d\n", how, WTERMSIG(st));
	else
		printf("%s: status %#x\n", how, st);
}

static void wait_report(const char *how, pid_t pid)
{
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	report(how, st);
}

static void spawn_vfork(void)
{
	int p[2];
	if (pipe(p) != 0) {
		perror("pipe");
		exit(1);
	}
	char *argv[] = { (char *)self_path, "child", "vfork", NULL };
	pid_t pid = vfork();
	if (pid == 0) {
		/* the vfork child: only descriptor calls and exec */
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execv(self_path, argv);
		_exit(126);
	}
	close(p[1]);
	char buf[256];
	size_t got = 0;
	ssize_t n;
	while ((n = read(p[0], buf + got, sizeof buf - 1 - got)) > 0)
		got += (size_t)n;
	close(p[0]);
	buf[got] = 0;
	printf("vfork said: %s", buf);
	wait_report("vfork", pid);

	pid = vfork();
	if (pid == 0) {
		execl("/nonexistent/torture-child", "x", (char *)NULL);
		_exit(127);
	}
	wait_report("vfork of a missing program", pid);
}

static void spawn_posix(int use_path)
{
	char *argv[] = { (char *)(use_path ? "torture" : self_path), "child",
			 (char *)(use_path ? "spawnp" : "spawn"), NULL };
	pid_t pid;
	int err = use_path ? posix_spawnp(&pid, "torture", NULL, NULL, argv, environ)
			   : posix_spawn(&pid, self_path, NULL, NULL, argv, environ);
	check(use_path ? "posix_spawnp" : "posix_spawn", err);
	wait_report(use_path ? "posix_spawnp" : "posix_spawn", pid);
}

static void spawn_system(void)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "'%s' child system", self_path);
	report("system", system(cmd));
}

static void spawn_popen(void)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "'%s' child popen", self_path);
	FILE *f = popen(cmd, "r");
	if (!f) {
		perror("popen");
		exit(1);
	}
	char line[256];
	while (fgets(line, sizeof line, f))
		printf("popen said: %s", line);
	report("pclose", pclose(f));
}

static int run_spawn(void)
{
	pthread_t a = start(contend_main, NULL), b = start(contend_main, NULL);
	msleep(30);
	spawn_vfork();
	spawn_posix(0);
	spawn_posix(1);
	spawn_system();
	spawn_popen();
	stop = 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("spawn done\n");
	return 0;
}

static int run_child(const char *tag)
{
	char name[16];
	snprintf(name, sizeof name, "c-%s", tag);
	pthread_setname_np(pthread_self(), name);
	pthread_t a = start(contend_main, NULL), b = start(contend_main, NULL);
	msleep(30);
	stop = 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("child %s\n", tag);
	return 0;
}

/* --- abort, exit_running ------------------------------------------------- */

static void *cond_forever_main(void *arg)
{
	pthread_mutex_lock(&cmu);
	for (;;)
		pthread_cond_wait(&never, &cmu);
	return arg;
}

/* blocks on mu, which main holds until the process ends */
static void *mutex_forever_main(void *arg)
{
	pthread_mutex_lock(&mu);
	pthread_mutex_unlock(&mu);
	return arg;
}

static pthread_mutex_t busy_mu = PTHREAD_MUTEX_INITIALIZER;
static _Atomic long busy_rounds;

__attribute__((noinline)) static void *busy_main(void *arg)
{
	for (;;) {
		pthread_mutex_lock(&busy_mu);
		char *p = malloc(32 + (size_t)(busy_rounds % 512));
		p[0] = 1;
		free(p);
		pthread_mutex_unlock(&busy_mu);
		busy_rounds++;
	}
	return arg;
}

__attribute__((noinline)) static void *aborter_main(void *arg)
{
	msleep(300);
	printf("worker calls abort\n");
	fflush(stdout);
	abort();
	return arg;
}

__attribute__((noinline)) static void *exiter_main(void *arg)
{
	msleep(200);
	printf("worker calls exit(9)\n");
	exit(9);
	return arg;
}

static int run_ending(void *(*ender)(void *), int busy)
{
	pthread_mutex_lock(&mu);
	start(cond_forever_main, NULL);
	start(mutex_forever_main, NULL);
	for (int i = 0; i < busy; i++)
		start(busy_main, NULL);
	pthread_join(start(ender, NULL), NULL);
	printf("not reached\n");
	return 1;
}

/* --- clone_exit ------------------------------------------------------------ */

__attribute__((noinline)) static void *dlopen_main(void *arg)
{
	void *h = dlopen((const char *)arg, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		fprintf(stderr, "torture: dlopen: %s\n", dlerror());
	return h;
}

static int run_clone_exit(const char *lib)
{
	pthread_t t = start(dlopen_main, (void *)lib);
	msleep(100); /* the constructor is running: the loader's lock is held */
	long pid = syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);
	if (pid == 0)
		_exit(3);
	if (pid < 0) {
		perror("clone");
		return 1;
	}
	int st = 0, hung = 1;
	for (int i = 0; i < 300; i++) {
		if (waitpid((pid_t)pid, &st, WNOHANG) == pid) {
			hung = 0;
			break;
		}
		msleep(10);
	}
	if (hung) {
		kill((pid_t)pid, SIGKILL);
		waitpid((pid_t)pid, &st, 0);
		printf("clone child hung in _exit\n");
	} else {
		report("clone child", st);
	}
	void *h = NULL;
	pthread_join(t, &h);
	printf("dlopen %s\n", h ? "done" : "failed");
	return hung || !h;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	self_path = argv[0];
	if (strcmp(mode, "threads") == 0 && argc > 3)
		return run_threads(atol(argv[2]), atoi(argv[3]));
	if (strcmp(mode, "steady") == 0 && argc > 3)
		return run_steady(atof(argv[2]), atoi(argv[3]));
	if (strcmp(mode, "spawn") == 0) {
		setvbuf(stdout, NULL, _IONBF, 0);
		return run_spawn();
	}
	if (strcmp(mode, "child") == 0 && argc > 2)
		return run_child(argv[2]);
	if (strcmp(mode, "abort") == 0)
		return run_ending(aborter_main, 0);
	if (strcmp(mode, "exit_running") == 0)
		return run_ending(exiter_main, 2);
	if (strcmp(mode, "clone_exit") == 0 && argc > 2)
		return run_clone_exit(argv[2]);
	fprintf(stderr, "usage: torture threads N WAVE | steady SECS NT | spawn | child TAG | abort | exit_running | clone_exit LIB\n");
	return 2;
}
