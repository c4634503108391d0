/* dlgone_lib: a library for dlgone, built once per variant with
 * -DDLGONE_VARIANT=a (or b, c): each exports dlgone_<v>_wait(m), which
 * locks mutex m (held by another thread for 30 ms) through a function of
 * its own, so the wait's stack holds two of the library's frames.
 * -DDLGONE_BIG=n makes it n MiB long (a zeroed array): a is 8, b 2, so b
 * loaded after a was unloaded usually lands inside a's old range (the
 * kernel aligns large mappings to 2 MiB); -DDLGONE_PAD (b) puts a function
 * before the others, so b's PCs are not a's. */
#include <pthread.h>

#define CAT_(a, b, c) a##b##c
#define CAT(a, b, c) CAT_(a, b, c)
#define NAME(n) CAT(dlgone_, DLGONE_VARIANT, n)

#ifdef DLGONE_BIG
char dlgone_big[DLGONE_BIG << 20];
#endif

#ifdef DLGONE_PAD
__attribute__((noinline)) int NAME(_pad)(int x)
{
	for (int i = 0; i < x; i++)
		__asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop" ::: "memory");
	return x + 7;
}
#endif

__attribute__((noinline)) int NAME(_inner)(pthread_mutex_t *m)
{
	int r = pthread_mutex_lock(m);
	__asm__ volatile("" ::: "memory");
	return r ? r : pthread_mutex_unlock(m);
}

__attribute__((noinline)) int NAME(_wait)(pthread_mutex_t *m)
{
	int r = NAME(_inner)(m);
	__asm__ volatile("" ::: "memory");
	return r;
}
