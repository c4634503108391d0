/* real.c — resolving the real libc functions of GT_REAL_TABLE
 * (core/real_table.h) with dlsym / dlvsym RTLD_NEXT. */
#include "real.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>

#include "log.h"

struct gt_real gt_real;

/* The fallbacks of the optional rows: missing_<field>. */
#define NO_FALLBACK(field, symbol, version, ret, params)
#define FALLBACK(field, symbol, version, ret, params, missing) static ret missing_##field params missing
GT_REAL_TABLE(NO_FALLBACK, FALLBACK)
#undef NO_FALLBACK
#undef FALLBACK

static void *lookup(const char *name, const char *version)
{
	void *p = version ? dlvsym(RTLD_NEXT, name, version) : NULL;
	return p ? p : dlsym(RTLD_NEXT, name);
}

static void *need(const char *name, const char *version)
{
	void *p = lookup(name, version);
	if (!p) {
		gt_warn("cannot find the real %s: %s", name, dlerror());
		abort();
	}
	return p;
}

void gt_real_resolve(void)
{
	struct gt_real r;
#define NEED(field, symbol, version, ret, params) r.field = (ret(*) params)need(symbol, version);
#define WANT(field, symbol, version, ret, params, missing)           \
	r.field = (ret(*) params)lookup(symbol, version);            \
	if (!r.field)                                                \
		r.field = missing_##field;
	GT_REAL_TABLE(NEED, WANT)
#undef NEED
#undef WANT
	/* Publish field by field: concurrent resolvers store the same values. */
	void **dst = (void **)&gt_real, **src = (void **)&r;
	for (size_t i = 0; i < sizeof r / sizeof(void *); i++)
		__atomic_store_n(&dst[i], src[i], __ATOMIC_RELEASE);
}
