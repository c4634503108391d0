/* wire.h — constants of the Go execution trace v2 wire format (go 1.22–1.26).
 *
 * Numbers and argument lists follow Go's internal/trace/tracev2/events.go;
 * ../shared/docs/go-trace-format.md explains them from a writer's side. */
#ifndef GT_WIRE_H
#define GT_WIRE_H

#include <stdint.h>

/* Event types. The comment lists the arguments that follow the type byte
 * (timed events: after the timestamp delta `dt`). */
enum gt_ev {
	GT_EV_NONE = 0,
	GT_EV_BATCH = 1,            /* gen, m, base_time, size, payload */
	GT_EV_STACKS = 2,           /* section marker of a stack table batch */
	GT_EV_STACK = 3,            /* id, nframes, {pc, func, file, line} x n */
	GT_EV_STRINGS = 4,          /* section marker of a string table batch */
	GT_EV_STRING = 5,           /* id, len, bytes */
	GT_EV_CPU_SAMPLES = 6,      /* section marker */
	GT_EV_CPU_SAMPLE = 7,       /* time (absolute), m, p, g, stack */
	GT_EV_FREQUENCY = 8,        /* ticks per second */
	GT_EV_PROCS_CHANGE = 9,     /* dt, procs, stack */
	GT_EV_PROC_START = 10,      /* dt, p, p_seq */
	GT_EV_PROC_STOP = 11,       /* dt */
	GT_EV_PROC_STEAL = 12,      /* dt, p, p_seq, m */
	GT_EV_PROC_STATUS = 13,     /* dt, p, pstatus */
	GT_EV_GO_CREATE = 14,       /* dt, new_g, new_stack, stack */
	GT_EV_GO_CREATE_SYSCALL = 15, /* dt, new_g */
	GT_EV_GO_START = 16,        /* dt, g, g_seq */
	GT_EV_GO_DESTROY = 17,      /* dt */
	GT_EV_GO_DESTROY_SYSCALL = 18, /* dt */
	GT_EV_GO_STOP = 19,         /* dt, reason_string, stack */
	GT_EV_GO_BLOCK = 20,        /* dt, reason_string, stack */
	GT_EV_GO_UNBLOCK = 21,      /* dt, g, g_seq, stack */
	GT_EV_GO_SYSCALL_BEGIN = 22, /* dt, p_seq, stack */
	GT_EV_GO_SYSCALL_END = 23,  /* dt */
	GT_EV_GO_SYSCALL_END_BLOCKED = 24, /* dt */
	GT_EV_GO_STATUS = 25,       /* dt, g, m, gstatus */
	GT_EV_STW_BEGIN = 26,       /* dt, kind_string, stack */
	GT_EV_STW_END = 27,         /* dt */
	GT_EV_GC_ACTIVE = 28,       /* dt, gc_seq */
	GT_EV_GC_BEGIN = 29,        /* dt, gc_seq, stack */
	GT_EV_GC_END = 30,          /* dt, gc_seq */
	GT_EV_GC_SWEEP_ACTIVE = 31, /* dt, p */
	GT_EV_GC_SWEEP_BEGIN = 32,  /* dt, stack */
	GT_EV_GC_SWEEP_END = 33,    /* dt, swept_value, reclaimed_value */
	GT_EV_GC_MARK_ASSIST_ACTIVE = 34, /* dt, g */
	GT_EV_GC_MARK_ASSIST_BEGIN = 35,  /* dt, stack */
	GT_EV_GC_MARK_ASSIST_END = 36,    /* dt */
	GT_EV_HEAP_ALLOC = 37,      /* dt, bytes */
	GT_EV_HEAP_GOAL = 38,       /* dt, bytes */
	GT_EV_GO_LABEL = 39,        /* dt, label_string */
	GT_EV_USER_TASK_BEGIN = 40, /* dt, task, parent_task, name_string, stack */
	GT_EV_USER_TASK_END = 41,   /* dt, task, stack */
	GT_EV_USER_REGION_BEGIN = 42, /* dt, task, name_string, stack */
	GT_EV_USER_REGION_END = 43, /* dt, task, name_string, stack */
	GT_EV_USER_LOG = 44,        /* dt, task, key_string, value_string, stack */
	GT_EV_GO_SWITCH = 45,       /* dt, g, g_seq */
	GT_EV_GO_SWITCH_DESTROY = 46, /* dt, g, g_seq */
	GT_EV_GO_CREATE_BLOCKED = 47, /* dt, new_g, new_stack, stack */
	GT_EV_GO_STATUS_STACK = 48, /* dt, g, m, gstatus, stack */
	GT_EV_EXPERIMENTAL_BATCH = 49, /* exp (1 raw byte), gen, m, base_time, size, payload */
	GT_EV_SYNC = 50,            /* sync batch marker (1.25+) */
	GT_EV_CLOCK_SNAPSHOT = 51,  /* dt, mono_ns, wall_sec, wall_nsec (1.25+) */
	GT_EV_END_OF_GENERATION = 52, /* top level, 1.26+ */

	/* AllocFree experiment (experiment id 1). */
	GT_EV_SPAN = 128,                 /* dt, id, npages, kindclass */
	GT_EV_SPAN_ALLOC = 129,           /* dt, id, npages, kindclass */
	GT_EV_SPAN_FREE = 130,            /* dt, id */
	GT_EV_HEAP_OBJECT = 131,          /* dt, id, type */
	GT_EV_HEAP_OBJECT_ALLOC = 132,    /* dt, id, type */
	GT_EV_HEAP_OBJECT_FREE = 133,     /* dt, id */
	GT_EV_GOROUTINE_STACK = 134,      /* dt, id, order */
	GT_EV_GOROUTINE_STACK_ALLOC = 135, /* dt, id, order */
	GT_EV_GOROUTINE_STACK_FREE = 136, /* dt, id */
	GT_EV_MAX = 136,
};

/* Goroutine statuses (GoStatus). */
enum gt_gstatus { GT_G_BAD = 0, GT_G_RUNNABLE = 1, GT_G_RUNNING = 2, GT_G_SYSCALL = 3, GT_G_WAITING = 4 };
/* Proc statuses (ProcStatus). */
enum gt_pstatus { GT_P_BAD = 0, GT_P_RUNNING = 1, GT_P_IDLE = 2, GT_P_SYSCALL = 3, GT_P_SYSCALL_ABANDONED = 4 };

/* Experiment ids of experimental batches; only AllocFree exists. */
#define GT_EXP_ALLOCFREE 1
/* First byte of an AllocFree experimental batch payload. */
#define GT_ALLOCFREE_TYPES 0
#define GT_ALLOCFREE_INFO 1

/* Memory mappings as AllocFree spans (docs/heap.md, "Mapped memory").
 * A span's id is its base address / GT_SPAN_PAGE (the info batch's page
 * size), npages its length in those pages. kindclass packs the mapping's
 * class and the site that made it: (site << 4) | (class << 1) | 1 — always
 * odd, so it is never a Go heap span class (those are spanclass << 1); site
 * is a stack id of the same generation's stack table, 0 when unknown.
 * Thread stacks are also GoroutineStack events: id = base / GT_SPAN_PAGE
 * (the info batch's fixed stack size is GT_SPAN_PAGE), order = the bit
 * length of the size rounded up to a power of two (as Go's runtime); the
 * exact size is the stack's span (class GT_SPAN_STACK). */
#define GT_SPAN_PAGE 4096
enum gt_span_class {
	GT_SPAN_ANON = 0,     /* anonymous mapping made by the program (mmap/mremap) */
	GT_SPAN_MALLOC = 1,   /* anonymous mapping made inside the allocator (an arena) */
	GT_SPAN_BRK = 2,      /* the brk heap ([heap]) */
	GT_SPAN_STACK = 3,    /* a thread's stack, main's [stack] included */
	GT_SPAN_UNSEEN = 4,   /* anonymous, only seen in the process's map (made by calls
	                       * that bypass the wrappers, e.g. glibc malloc's own mmap) */
	GT_SPAN_CLASSES = 5,
};
#define GT_SPAN_KINDCLASS(site, cls) (((uint64_t)(site) << 4) | ((uint64_t)(cls) << 1) | 1)
#define GT_SPAN_KC_CLASS(kc) ((unsigned)(((kc) >> 1) & 7))
#define GT_SPAN_KC_SITE(kc) ((kc) >> 4)
/* The M of the batches that restate live memory at a generation's start
 * (Span, GoroutineStack and HeapObject snapshot events): no thread's. */
#define GT_SNAPSHOT_M ((uint64_t)1 << 62)

#define GT_NO_THREAD UINT64_MAX      /* M of NoThread batches, "-1" args */
#define GT_MAX_BATCH 65536           /* payload bytes of one batch, at most */
#define GT_MAX_STRING 1024           /* bytes of one string, at most */
#define GT_MAX_FRAMES 128            /* frames of one stack, at most */
#define GT_UVARINT_MAX 10            /* bytes of one uvarint, at most */
#define GT_HEADER_LEN 16             /* "go 1.23 trace\0\0\0" */
#define GT_BATCH_SIZE_WIDTH 3        /* our padded size field; 3 bytes hold 2^21-1 */
#define GT_MAX_ARGS 4                /* uvarint args after dt of a timed event, at most */

/* Trace format versions we can write. */
#define GT_FORMAT_23 23
#define GT_FORMAT_26 26
/* Also understood by the reader (and writable, for tests): 1.22 has no
 * events 45-49; 1.25 has the Sync batch of 1.26 but no EndOfGeneration. */
#define GT_FORMAT_22 22
#define GT_FORMAT_25 25

/* gt_ev_nargs returns how many uvarint arguments follow the timestamp delta
 * of a timed event of this type (0..GT_MAX_ARGS), or -1 for a structural or
 * unknown type. ClockSnapshot counts as timed (3), as in Go's table. */
int gt_ev_nargs(unsigned type);
/* gt_ev_name returns the Go name of an event type ("GoBlock"), or "?". */
const char *gt_ev_name(unsigned type);

#endif
