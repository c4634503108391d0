/* test_engine_fixture.h — the engine (core/engine.h) started into a memfd in
 * the unit-test process, the wrappers' side played by small functions that
 * call the core the way interpose/ does, and the trace read back with the
 * project's reader (encoder/reader.h) into a model a test can search.
 * (Free of core/ and encoder/ headers: core/stack.h and encoder/reader.h
 * each define a struct gt_stack.)
 *
 * Criterion runs each test in a process of its own: one engine per test. */
#ifndef TEST_ENGINE_FIXTURE_H
#define TEST_ENGINE_FIXTURE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* ex_start starts the engine into a new memfd with the options given as
 * "GOTRACE_NAME=value" strings (NULL-terminated; NULL: the defaults),
 * asserting that it started. ex_stop writes the final generation. */
void ex_start(const char *const *opts);
/* ex_start_path: the same with the output a path pattern (GOTRACE_OUT)
 * instead of the memfd. */
void ex_start_path(const char *const *opts, const char *pattern);
void ex_stop(void);
/* ex_fd: the memfd. */
int ex_fd(void);

/* --- the wrappers' side (interpose/) ------------------------------------- */

/* ex_create / ex_join: pthread_create and pthread_join as
 * interpose/thread.c traces them (GoCreate, the new thread's first
 * ProcStart + GoStart; a join that waits: GoBlock("sync.join")). ex_create
 * returns the new goroutine's id. */
uint64_t ex_create(pthread_t *th, void *(*fn)(void *), void *arg);
void ex_join(pthread_t th);
/* ex_lock / ex_unlock: a pthread mutex as interpose/mutex.c traces it
 * (GoBlock("sync.mutex") when it waits; the unlock leaves a wake record). */
void ex_lock(pthread_mutex_t *m);
void ex_unlock(pthread_mutex_t *m);
/* ex_read_call: read(2) on fd as interpose/io.c traces a call that may
 * wait in the kernel (kind GT_CALL_SYSCALL or GT_CALL_NETWORK). */
long ex_read_call(int kind, int fd, void *buf, size_t n);
/* ex_yield: sched_yield (GoStop "sched_yield" + GoStart). */
void ex_yield(void);
/* A raw futex wait (FUTEX_WAIT_PRIVATE, GT_CALL_FUTEX) and wake, recorded
 * as interpose/syscall.c records them. */
long ex_futex_wait(_Atomic int *word, int val, const struct timespec *rel);
long ex_futex_wake(_Atomic int *word);
/* ex_malloc / ex_free: the malloc wrappers' fast and slow halves
 * (interpose/malloc.c). */
void *ex_malloc(size_t n);
void ex_free(void *p);
/* ex_setname: pthread_setname_np (GoLabel on the named thread). */
void ex_setname(pthread_t th, const char *name);
/* ex_prctl_setname: prctl(PR_SET_NAME, name) as interpose/thread.c's prctl
 * does it (GoLabel on the calling thread once the kernel took the name);
 * returns prctl's result. */
int ex_prctl_setname(const char *name);
/* ex_barrier_wait: a wait nobody releases, recorded after the fact when it
 * took ms or more (interpose/barrier.c: GoBlock("sync.barrier")). */
void ex_barrier_wait(int ms);
/* The annotation API (interpose/annotate.c, include/gotrace.h). */
uint64_t ex_task_begin(const char *name);
void ex_task_end(uint64_t task);
void ex_region(uint64_t task, const char *name, int begin);
void ex_log(uint64_t task, const char *category, const char *message);

/* --- the trace ----------------------------------------------------------- */

#define EX_FRAMES 8
struct ex_frame {
	uint64_t pc, line;
	char func[96], file[160];
};
struct ex_stack {
	uint64_t gen, id;
	unsigned n; /* frames kept, at most EX_FRAMES */
	struct ex_frame f[EX_FRAMES];
};
struct ex_str {
	uint64_t gen, id;
	char *s;
};
struct ex_type {
	uint64_t gen, id, stack, size;
	char name[40];
};
/* An event with where it was: its generation, its thread (M) and the
 * goroutine running there when it was written (0: none). */
struct ex_ev {
	uint64_t gen, m, g;
	uint8_t type;     /* enum gt_ev (encoder/wire.h) */
	uint64_t ts;
	uint64_t args[4]; /* after dt */
};

struct ex_trace {
	int version;
	uint64_t first_gen, last_gen; /* generations seen, consecutive */
	unsigned gens;                /* how many */
	unsigned syncs, ends;         /* sync batches, EndOfGeneration bytes */
	unsigned heap_infos;          /* AllocFree info batches */
	struct ex_ev *ev;
	size_t nev;
	struct ex_str *str;
	size_t nstr;
	struct ex_stack *stk;
	size_t nstk;
	struct ex_type *types;
	size_t ntypes;
	char err[192];                /* the reader's error, "" when it read to a clean end */
};

/* ex_read reads the memfd from its start (asserting a clean end);
 * ex_read_file a trace file. */
struct ex_trace *ex_read(void);
struct ex_trace *ex_read_file(const char *path);
void ex_free_trace(struct ex_trace *t);

/* ex_string: the string id of generation gen ("" when not defined). */
const char *ex_string(const struct ex_trace *t, uint64_t gen, uint64_t id);
/* ex_stack: stack id of generation gen (NULL when not defined). */
const struct ex_stack *ex_stack(const struct ex_trace *t, uint64_t gen, uint64_t id);
/* ex_type: heap type id of generation gen (NULL when not defined). */
const struct ex_type *ex_type(const struct ex_trace *t, uint64_t gen, uint64_t id);
/* ex_next: the index of the first event at or after `from` of this type
 * (and of goroutine g unless g is 0), or t->nev. */
size_t ex_next(const struct ex_trace *t, size_t from, uint8_t type, uint64_t g);
/* ex_count: events of this type (of goroutine g unless 0). */
size_t ex_count(const struct ex_trace *t, uint8_t type, uint64_t g);
/* ex_leaf: the name of the leaf function of an event's stack argument
 * (args[i]), or "" when it has none. */
const char *ex_leaf(const struct ex_trace *t, const struct ex_ev *e, int i);

#endif
