/* slow_ctor: a shared library whose constructor takes 400 ms. While it runs,
 * the thread that called dlopen holds the dynamic loader's lock (torture.c,
 * mode clone_exit). */
#include <time.h>

__attribute__((constructor)) static void slow_ctor(void)
{
	struct timespec ts = { 0, 400 * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}
