/* preload.c — the preload layer: the library's constructor and destructor
 * around the engine (core/engine.h). It reads the GOTRACE_* options from
 * the environment, says to processes started from this one that the trace
 * file's name is taken (GOTRACE_CLAIMED), starts the engine, installs the
 * fork handlers and the signal handlers, checks whose malloc the program
 * calls, and at exit has the engine write the final generation. Nothing in
 * core/ calls into this file. */
#include <stdlib.h>

#include "../core/config.h"
#include "../core/engine.h"
#include "../core/fork.h"
#include "../core/heap.h"
#include "../core/log.h"
#include "../core/mem.h"
#include "../core/real.h"
#include "../core/signals.h"
#include "../core/thread.h"
#include "interpose.h"

/* Set in the environment by the first image that claims a trace file;
 * later images (after fork + exec) write next to it instead of over it. */
#define CLAIMED_ENV "GOTRACE_CLAIMED"

static void warn_line(const char *line, void *arg)
{
	(void)arg;
	gt_warn_line(line);
}

/* claim: the output is accepted. Processes started from this one write
 * files of their own (called before the engine starts any thread: setenv
 * is not thread-safe). */
static void claim(void)
{
	setenv(CLAIMED_ENV, "1", 1);
}

__attribute__((constructor)) static void gt_preload_init(int argc, char **argv, char **envp)
{
	(void)envp;
	struct gt_thread *self = &gt_self;
	self->inside++;
	gt_real_resolve();
	gt_mem_set_handover(malloc); /* this library's: libraries free with ours */
	struct gt_config cfg;
	gt_config_load(&cfg, secure_getenv, warn_line, NULL);
	int later = secure_getenv(CLAIMED_ENV) != NULL;
	struct gt_engine_output out = { .fd = -1, .later_image = later, .claimed = later ? NULL : claim };
	if (gt_engine_start(&cfg, &out, argc, argv) != 0) {
		self->inside--;
		return;
	}
	gt_fork_install(gt_engine_child_restart);
	/* Before the handlers: a death handler's final switch reads whether
	 * the allocator is ours (core/gen_stacks.c). */
	gt_heap_check_allocator();
	gt_thread_std_init();
	gt_signals_install();
	self->inside--;
}

__attribute__((destructor)) static void gt_preload_fini(void)
{
	gt_engine_stop();
}
