/* init.c — the library's life: constructor (options, trace file, main
 * thread, flusher), thread-exit hook, fork and the final flush at exit. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../encoder/writer.h"
#include "advance.h"
#include "chunk.h"
#include "clock.h"
#include "config.h"
#include "emit.h"
#include "flusher.h"
#include "flight.h"
#include "fork.h"
#include "log.h"
#include "pressure.h"
#include "real.h"
#include "signals.h"
#include "stack.h"
#include "thread.h"
#include "wake.h"

#ifndef MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED
#define MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED (1 << 4)
#endif

/* Set in the environment by the first image that claims a trace file;
 * later images (after fork + exec) write next to it instead of over it. */
#define CLAIMED_ENV "GOTRACE_CLAIMED"

struct gt_tracer gt = {
	.gen = 1,
	.next_g = 2, /* 1 is the main thread */
	.fd = -1,
};

static pthread_key_t exit_key;
static int initialized;

static _Atomic int main_exited;

static void thread_exit_hook(void *v)
{
	struct gt_thread *t = &gt_self;
	(void)v;
	if (!t->registered || t->state == GT_T_DEAD)
		return;
	if (t->g == 1)
		atomic_store(&main_exited, 1);
	gt_thread_end(t);
	/* After main's pthread_exit the process ends when its last thread
	 * does; the flusher must not be that thread. When no traced thread is
	 * left, it steps aside, and the last thread's exit(0) writes the final
	 * generation (gt_fini). */
	if (atomic_load(&main_exited)) {
		gt_lock(&gt.reg_lock);
		int none = gt.threads == NULL;
		gt_unlock(&gt.reg_lock);
		if (none)
			gt_flusher_stop();
	}
}

/* gt_thread_watch_exit makes the calling thread's exit run the hook. */
void gt_thread_watch_exit(struct gt_thread *t)
{
	if (initialized)
		pthread_setspecific(exit_key, t);
}

static void warn_line(const char *line, void *arg)
{
	(void)arg;
	gt_warn_line(line);
}

int gt_open_trace(int later_image)
{
	pid_t pid = getpid();
	char path[sizeof gt.out_path - 32];
	if (gt_config_expand_out(gt.out_pattern, pid, path, sizeof path) != 0) {
		gt_warn("GOTRACE_OUT=\"%s\" is not a usable path; the program runs untraced", gt.out_pattern);
		return -1;
	}
	/* With %p in the pattern a later process already has a name of its own. */
	int own_name = strstr(gt.out_pattern, "%p") != NULL;
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW;
	int fd;
	if (!later_image) {
		snprintf(gt.out_path, sizeof gt.out_path, "%s", path);
		fd = (int)syscall(SYS_openat, AT_FDCWD, gt.out_path, flags | O_TRUNC, 0666);
	} else {
		/* A process started from a traced one: its own file, never
		 * someone else's (pid first, then .1, .2 ... if taken). */
		fd = -1;
		for (int k = own_name ? -1 : 0; k < 100 && fd < 0; k++) {
			if (k < 0)
				snprintf(gt.out_path, sizeof gt.out_path, "%s", path);
			else if (own_name) /* the pid is in the name already */
				snprintf(gt.out_path, sizeof gt.out_path, "%s.%d", path, k + 1);
			else if (k == 0)
				snprintf(gt.out_path, sizeof gt.out_path, "%s.%d", path, (int)pid);
			else
				snprintf(gt.out_path, sizeof gt.out_path, "%s.%d.%d", path, (int)pid, k);
			fd = (int)syscall(SYS_openat, AT_FDCWD, gt.out_path, flags | O_EXCL, 0666);
			if (fd < 0 && errno != EEXIST)
				break;
		}
	}
	if (fd < 0) {
		gt_warn("cannot open the trace file %s: %s; the program runs untraced", gt.out_path,
			strerror(errno));
		return -1;
	}
	/* Keep the trace out of the way of the program's own descriptors:
	 * a high number, and its identity remembered so that a program that
	 * closes every fd and opens its own file on ours is never written to
	 * (core/advance.c checks before each write). */
	int hi = (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 900);
	if (hi >= 0) {
		close(fd);
		fd = hi;
	}
	struct stat st;
	if (syscall(SYS_fstat, fd, &st) == 0) {
		gt.out_dev = st.st_dev;
		gt.out_ino = st.st_ino;
	}
	if (!later_image)
		setenv(CLAIMED_ENV, "1", 1); /* before any thread: see gt_init */
	uint8_t hdr[GT_HEADER_LEN];
	gt_write_header(hdr, gt.format);
	struct iovec iov = { hdr, sizeof hdr };
	int err = gt_write_all(fd, &iov, 1);
	if (err) {
		gt_warn("cannot write the trace file %s: %s; the program runs untraced", gt.out_path, strerror(err));
		close(fd);
		return -1;
	}
	gt.fd = fd;
	gt.pid = (int)pid;
	return 0;
}

/* gt_child_restart: the child of fork starts a trace of its own (see
 * core/fork.c). Runs in the child's only thread, with every tracer lock
 * free. */
void gt_child_restart(void)
{
	struct gt_thread *t = &gt_self;
	int was_on = atomic_load(&gt.on) && !gt.finished;
	if (gt.fd >= 0)
		close(gt.fd); /* the parent's file: never written from here */
	gt.fd = -1;
	gt_flusher_forget_after_fork();
	gt_flight_forget();
	gt_pressure_forget_after_fork();
	atomic_store(&gt.on, 0);
	gt.finished = 1;
	if (!was_on)
		return;
	/* Everything the parent's other threads had is gone with them. */
	atomic_store(&gt.gen, 1);
	atomic_store(&gt.full[0], NULL);
	atomic_store(&gt.full[1], NULL);
	for (int i = 0; i < 2; i++) {
		gt_strtab_reset(&gt.strings[i]);
		gt_stacktab_reset(&gt.stacks[i]);
		gt_typetab_reset(&gt.types[i]);
	}
	gt.threads = NULL;
	gt.pending_labels = NULL;
	gt.free_procs = NULL;
	gt.next_p = 0;
	gt.next_serial = 0;
	atomic_store(&gt.next_g, 2);
	atomic_store(&main_exited, 0);
	gt_wake_reset();
	struct gt_stack_bounds bounds = t->bounds; /* the stack is still the same */
	memset(t, 0, sizeof *t);
	t->bounds = bounds;
	t->inside = 1;
	if (gt_open_trace(1) != 0) {
		t->inside = 0;
		return;
	}
	gt.finished = 0;
	gt_advance_start(gt_now());
	atomic_store(&gt.on, 1);
	gt_main_begin(t);
	int err = gt_flusher_start();
	if (err)
		gt_warn("cannot start the flusher thread: %s; the trace is written at exit only", strerror(err));
	t->inside = 0;
}

__attribute__((constructor)) static void gt_init(void)
{
	struct gt_thread *self = &gt_self;
	self->inside++;
	gt_real_resolve();
	struct gt_config cfg;
	gt_config_load(&cfg, secure_getenv, warn_line, NULL);
	gt.max_frames = cfg.stacks ? cfg.stacks : 1; /* 0: only the interposed call */
	gt.period_ns = cfg.period_ns;
	gt.format = (int)cfg.format;
	gt.malloc_events = cfg.malloc_events;
	gt.flight_ns = cfg.flight_ns;
	gt.flight_bytes = cfg.flight_bytes;
	gt.flight_signal = cfg.flight_signal;
	gt.buffer_chunks = cfg.buffer_bytes / GT_CHUNK_SIZE;
	gt.gen_full_chunks = gt.buffer_chunks / 4;
	if (gt.gen_full_chunks > GT_GEN_FULL_CHUNKS_MAX)
		gt.gen_full_chunks = GT_GEN_FULL_CHUNKS_MAX;
	/* The flight recorder keeps whole generations: a few must fit its cap. */
	if (gt.flight_bytes && gt.gen_full_chunks > gt.flight_bytes / 4 / GT_CHUNK_SIZE)
		gt.gen_full_chunks = gt.flight_bytes / 4 / GT_CHUNK_SIZE;
	if (gt.gen_full_chunks < GT_GEN_FULL_CHUNKS_MIN)
		gt.gen_full_chunks = GT_GEN_FULL_CHUNKS_MIN;
	for (int i = 0; i < 2; i++) {
		gt_strtab_init(&gt.strings[i]);
		gt_stacktab_init(&gt.stacks[i]);
		gt_typetab_init(&gt.types[i]);
	}
	snprintf(gt.out_pattern, sizeof gt.out_pattern, "%s", cfg.out);
	if (gt_open_trace(secure_getenv(CLAIMED_ENV) != NULL) != 0) {
		self->inside--;
		return;
	}
	gt_stack_init();
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
		gt.asym_fence = 1;
	pthread_key_create(&exit_key, thread_exit_hook);
	gt_fork_install();
	initialized = 1;
	gt_advance_start(gt_now());
	atomic_store(&gt.on, 1);
	gt_main_begin(self);
	gt_signals_install();
	int err = gt_flusher_start();
	if (err)
		gt_warn("cannot start the flusher thread: %s; the trace is written at exit only", strerror(err));
	self->inside--;
}

__attribute__((destructor)) static void gt_fini(void)
{
	if (!initialized || gt.finished || getpid() != gt.pid)
		return;
	gt_self.inside++;
	atomic_store(&gt.on, 0);
	gt_flusher_stop();
	gt_advance(1);
	if (gt.fd >= 0) {
		close(gt.fd);
		gt.fd = -1;
	}
}
