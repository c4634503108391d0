/* test_real.c — the table of real functions (core/real_table.h): once
 * resolved, every pointer is set, required or optional, so no wrapper
 * needs a check of its own and no call resolves again. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>

#include "core/real.h"
#include "core/realalloc.h"

/* unset_fields counts the NULL fields of a struct of function pointers. */
static size_t unset_fields(void *const *fields, size_t n)
{
	size_t unset = 0;
	for (size_t i = 0; i < n; i++)
		unset += fields[i] == NULL;
	return unset;
}

Test(real, every_libc_pointer_is_set_after_resolution)
{
	gt_real_resolve();
	cr_assert_eq(unset_fields((void *const *)&gt_real, sizeof gt_real / sizeof(void *)), 0);
	/* The real pthread_mutex_lock is libc's, not a wrapper of this binary. */
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	cr_assert_eq(gt_real.mutex_lock(&m), 0);
	cr_assert_eq(gt_real.mutex_trylock(&m), EBUSY);
	cr_assert_eq(gt_real.mutex_unlock(&m), 0);
}

Test(real, resolution_is_idempotent)
{
	gt_real_resolve();
	void *first = (void *)gt_real.cond_clockwait;
	gt_real_resolve();
	cr_assert_eq((void *)gt_real.cond_clockwait, first);
}

Test(real, every_allocator_pointer_is_set_and_works)
{
	while (!gt_alloc_resolve())
		;
	cr_assert_eq(unset_fields((void *const *)&gt_alloc, sizeof gt_alloc / sizeof(void *)), 0);
	void *p = GT_ALLOC(malloc)(100);
	cr_assert_not_null(p);
	cr_assert_geq(GT_ALLOC(usable)(p), 100);
	GT_ALLOC(free)(p);
}
