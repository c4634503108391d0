/* test_engine_gens.c — generations: switches by the period and by the
 * flusher, early ends when the chunks fill up, back-pressure with a small
 * buffer, the flight ring, and the descriptor output's edges. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/advance.h"
#include "core/chunk.h"
#include "core/config.h"
#include "core/engine.h"
#include "core/flusher.h"
#include "core/fork.h"
#include "core/section.h"
#include "core/thread.h"
#include "core/tracer.h"
#include "encoder/wire.h"
#include "test_engine_fixture.h"

static void sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	nanosleep(&ts, NULL);
}

Test(engine_gens, the_period_ends_generations_on_the_program_thread)
{
	ex_start((const char *const[]){ "GOTRACE_PERIOD=5ms", NULL });
	for (int i = 0; i < 8; i++) {
		sleep_ms(6);
		ex_yield(); /* an event after the period: this thread switches */
	}
	ex_stop();
	struct ex_trace *t = ex_read();
	cr_assert_geq(t->gens, 5, "%u generations", t->gens);
	cr_assert_eq(ex_count(t, GT_EV_GO_STOP, 1), 8);
	/* Each generation re-states goroutine 1 (invariant 4). */
	for (uint64_t g = t->first_gen + 1; g <= t->last_gen; g++) {
		int stated = 0;
		for (size_t i = 0; i < t->nev; i++)
			stated |= t->ev[i].gen == g && t->ev[i].type == GT_EV_GO_STATUS && t->ev[i].args[0] == 1;
		cr_assert(stated, "goroutine 1 in generation %llu", (unsigned long long)g);
	}
	ex_free_trace(t);
}

static void *spinner(void *arg)
{
	long n = (long)arg;
	for (long i = 0; i < n; i++)
		ex_yield();
	return NULL;
}

Test(engine_gens, the_flusher_switches_while_threads_run)
{
	ex_start((const char *const[]){ "GOTRACE_PERIOD=10ms", NULL });
	pthread_t th[2];
	uint64_t g[2];
	for (int i = 0; i < 2; i++)
		g[i] = ex_create(&th[i], spinner, (void *)20000L);
	sleep_ms(50);
	for (int i = 0; i < 2; i++)
		ex_join(th[i]);
	ex_stop();
	struct ex_trace *t = ex_read();
	cr_assert_geq(t->gens, 3);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(ex_count(t, GT_EV_GO_STOP, g[i]), 20000, "every yield of goroutine %llu",
			     (unsigned long long)g[i]);
		cr_assert_eq(ex_count(t, GT_EV_GO_DESTROY, g[i]), 1);
	}
	ex_free_trace(t);
}

Test(engine_gens, full_chunks_end_a_generation_early)
{
	/* 1 MB of buffer: a generation ends after 16 full chunks (256 KB),
	 * long before its 10 s period. */
	ex_start((const char *const[]){ "GOTRACE_PERIOD=10s", "GOTRACE_BUFFER=1MB", "GOTRACE_STACKS=0", NULL });
	for (int i = 0; i < 200000; i++)
		ex_yield();
	ex_stop();
	struct ex_trace *t = ex_read();
	cr_assert_geq(t->gens, 3, "%u generations in under 10 s", t->gens);
	cr_assert_eq(ex_count(t, GT_EV_GO_STOP, 1), 200000, "nothing lost");
	ex_free_trace(t);
}

/* stderr_to_memfd puts the process's stderr into a new memfd; returns it. */
static int stderr_to_memfd(void)
{
	int fd = memfd_create("stderr", 0);
	cr_assert(fd >= 0);
	cr_assert_eq(dup2(fd, 2), 2);
	return fd;
}

static void stderr_text(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);
	buf[n > 0 ? n : 0] = 0;
}

Test(engine_gens, back_pressure_holds_writers_to_the_buffer)
{
	int err = stderr_to_memfd();
	ex_start((const char *const[]){ "GOTRACE_PERIOD=1h", "GOTRACE_BUFFER=1MB", "GOTRACE_STACKS=0", NULL });
	enum { T = 4, N = 150000 };
	pthread_t th[T];
	uint64_t g[T];
	/* The flusher falls behind: the switch is held up until the threads
	 * have filled the 1 MB buffer (they write 3.6 MB), and a little longer
	 * so that they wait for it. */
	gt_lock(&gt.advance_lock);
	for (int i = 0; i < T; i++)
		g[i] = ex_create(&th[i], spinner, (void *)(long)N);
	for (int ms = 0; ms < 5000 && !atomic_load(&gt_chunk_pressure); ms++)
		sleep_ms(1);
	cr_assert(atomic_load(&gt_chunk_pressure), "the buffer is full");
	sleep_ms(50);
	gt_unlock(&gt.advance_lock);
	for (int i = 0; i < T; i++)
		ex_join(th[i]);
	ex_stop();
	struct ex_trace *t = ex_read();
	cr_assert_geq(t->gens, 2);
	for (int i = 0; i < T; i++)
		cr_assert_eq(ex_count(t, GT_EV_GO_STOP, g[i]), N, "nothing dropped of goroutine %llu",
			     (unsigned long long)g[i]);
	ex_free_trace(t);
	char text[1024];
	stderr_text(err, text, sizeof text);
	cr_assert(strstr(text, "the trace writer fell behind: threads waited"), "stderr: %s", text);
	cr_assert(!strstr(text, "dropped"), "stderr: %s", text);
}

Test(engine_gens, the_flight_ring_keeps_the_last_generations)
{
	int err = stderr_to_memfd();
	ex_start((const char *const[]){ "GOTRACE_FLIGHT=1MB", "GOTRACE_STACKS=0", NULL });
	for (int i = 0; i < 400; i++) {
		for (int k = 0; k < 500; k++)
			ex_yield();
		gt_advance(0);
	}
	ex_stop();
	struct ex_trace *t = ex_read();
	/* 400 generations of ~5 KB each: the ring holds the newest within
	 * 1 MB, consecutive, up to the final one. */
	cr_assert_gt(t->first_gen, 1, "the oldest generations were dropped");
	cr_assert_eq(t->last_gen, 401);
	cr_assert_lt(t->gens, 400);
	cr_assert_eq(t->syncs, t->gens);
	cr_assert_eq(ex_count(t, GT_EV_GO_STOP, 1) % 500, 0, "whole generations");
	ex_free_trace(t);
	char text[512];
	stderr_text(err, text, sizeof text);
	cr_assert(strstr(text, "gotrace: flight recorder: the last ") && strstr(text, "written to /proc/self/fd/"),
		  "stderr: %s", text);
}

Test(engine_gens, a_descriptor_keeps_what_it_held)
{
	int fd = memfd_create("prefix", 0);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, "PREFIX", 6), 6);
	struct gt_config cfg;
	gt_config_defaults(&cfg);
	struct gt_engine_output out = { .fd = fd };
	cr_assert_eq(gt_engine_start(&cfg, &out, 0, NULL), 0);
	gt_engine_stop();
	struct stat st;
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_gt(st.st_size, 6 + GT_HEADER_LEN);
	char buf[6 + GT_HEADER_LEN];
	cr_assert_eq(pread(fd, buf, sizeof buf, 0), (ssize_t)sizeof buf);
	cr_assert_eq(memcmp(buf, "PREFIX", 6), 0);
	cr_assert_eq(memcmp(buf + 6, "go 1.23 trace", 13), 0, "the trace starts at the end it found");
}

Test(engine_gens, a_read_only_descriptor_is_refused)
{
	int err = stderr_to_memfd();
	int fd = open("/proc/self/exe", O_RDONLY);
	cr_assert(fd >= 0);
	struct gt_config cfg;
	gt_config_defaults(&cfg);
	struct gt_engine_output out = { .fd = fd };
	cr_assert_eq(gt_engine_start(&cfg, &out, 0, NULL), -1);
	gt_engine_stop(); /* nothing to do */
	char text[512];
	stderr_text(err, text, sizeof text);
	cr_assert(strstr(text, "is not open for writing; the program runs untraced"), "stderr: %s", text);
}

Test(engine_gens, a_fork_child_leaves_the_parents_descriptor_alone)
{
	ex_start(NULL);
	gt_fork_install(gt_engine_child_restart); /* as interpose/preload.c does */
	ex_yield();
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		ex_yield(); /* untraced: the output is the parent's */
		gt_engine_stop();
		_exit(0);
	}
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ex_yield();
	ex_stop();
	struct ex_trace *t = ex_read();
	cr_assert_eq(t->first_gen, 1);
	cr_assert_eq(ex_count(t, GT_EV_GO_STOP, 1), 2, "the parent's two yields, none of the child's");
	ex_free_trace(t);
}

Test(engine_gens, a_path_output_and_a_flight_snapshot)
{
	char dir[] = "/tmp/engine-test.XXXXXX";
	cr_assert(mkdtemp(dir));
	char pattern[128], snap[200];
	snprintf(pattern, sizeof pattern, "%s/out.%%p.trace", dir);
	ex_start_path((const char *const[]){ "GOTRACE_FLIGHT=1MB", "GOTRACE_STACKS=0", NULL }, pattern);
	char path[160];
	snprintf(path, sizeof path, "%s/out.%d.trace", dir, (int)getpid());
	struct stat st;
	cr_assert_neq(stat(path, &st), 0, "not created before its first generation");
	int err = stderr_to_memfd();
	for (int i = 0; i < 3; i++) {
		ex_yield();
		gt_advance(0);
	}
	gt_flusher_snapshot(); /* no flusher: this thread writes it at once */
	ex_yield();
	ex_stop();
	snprintf(snap, sizeof snap, "%s.snap1", path);
	struct ex_trace *s = ex_read_file(snap), *t = ex_read_file(path);
	cr_assert_eq(s->first_gen, 1);
	cr_assert_eq(s->last_gen, 4, "the snapshot: every generation up to its own");
	cr_assert_eq(ex_count(s, GT_EV_GO_STOP, 1), 3);
	cr_assert_eq(t->first_gen, 1);
	cr_assert_eq(t->last_gen, 5, "the trace file: all of them, the final one included");
	cr_assert_eq(ex_count(t, GT_EV_GO_STOP, 1), 4);
	ex_free_trace(s);
	ex_free_trace(t);
	char text[1024];
	stderr_text(err, text, sizeof text);
	cr_assert(strstr(text, "flight recorder: the last ") && strstr(text, ".snap1"), "stderr: %s", text);
	unlink(snap);
	unlink(path);
	rmdir(dir);
}

Test(engine_gens, batches_stamped_before_the_start_are_lifted_apart)
{
	/* Two threads whose first events of a generation were stamped before
	 * it began: each batch starts after the generation's start, and not at
	 * the same time as the other's (Go's readers never try one of two
	 * threads' events tied at the earliest time: core/tracer.h, gen_start). */
	ex_start((const char *const[]){ "GOTRACE_PERIOD=10s", NULL });
	uint64_t gen = atomic_load(&gt.gen);
	uint64_t start = 1000000; /* the first generation's start is 0: give it one */
	atomic_store(&gt.gen_start[gen & 1], start);
	static struct gt_thread a, b;
	a.serial = 7;
	a.m = 1007;
	b.serial = 8;
	b.m = 1008;
	struct gt_batch *ba = gt_room_slow(&a, gen, start - 1000);
	struct gt_batch *bb = gt_room_slow(&b, gen, start - 5);
	cr_assert(ba && bb);
	cr_assert_gt(ba->last_ts, start);
	cr_assert_gt(bb->last_ts, start);
	cr_assert_neq(ba->last_ts, bb->last_ts);
	cr_assert_lt(ba->last_ts, start + 10000, "lifted by nanoseconds, not more");
	/* A batch stamped after the start keeps its time. */
	struct gt_chunk *ca = a.chunk[gen & 1];
	a.chunk[gen & 1] = NULL;
	struct gt_batch *late = gt_room_slow(&a, gen, start + 123456);
	cr_assert_eq(late->last_ts, start + 123456);
	gt_chunk_put(ca);
	gt_chunk_put(a.chunk[gen & 1]);
	gt_chunk_put(b.chunk[gen & 1]);
	ex_stop();
}
