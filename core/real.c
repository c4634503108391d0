/* real.c — resolving the real libc functions (dlsym / dlvsym RTLD_NEXT). */
#include "real.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

struct gt_real gt_real;

static void *need(const char *name, const char *version)
{
	void *p = version ? dlvsym(RTLD_NEXT, name, version) : NULL;
	if (!p)
		p = dlsym(RTLD_NEXT, name);
	if (!p) {
		gt_warn("cannot find the real %s: %s", name, dlerror());
		abort();
	}
	return p;
}

static void *want(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

void gt_real_resolve(void)
{
	struct gt_real r;
	memset(&r, 0, sizeof r);
	r.pthread_create = need("pthread_create", NULL);
	r.pthread_join = need("pthread_join", NULL);
	r.pthread_tryjoin_np = need("pthread_tryjoin_np", NULL);
	r.pthread_timedjoin_np = need("pthread_timedjoin_np", NULL);
	r.pthread_clockjoin_np = want("pthread_clockjoin_np");
	r.pthread_setname_np = need("pthread_setname_np", NULL);
	r.sigaction = need("sigaction", NULL);
	r.signal = need("signal", NULL);
	r.mutex_lock = need("pthread_mutex_lock", NULL);
	r.mutex_trylock = need("pthread_mutex_trylock", NULL);
	r.mutex_timedlock = need("pthread_mutex_timedlock", NULL);
	r.mutex_clocklock = want("pthread_mutex_clocklock");
	r.mutex_unlock = need("pthread_mutex_unlock", NULL);
	r.rwlock_rdlock = need("pthread_rwlock_rdlock", NULL);
	r.rwlock_tryrdlock = need("pthread_rwlock_tryrdlock", NULL);
	r.rwlock_timedrdlock = need("pthread_rwlock_timedrdlock", NULL);
	r.rwlock_clockrdlock = want("pthread_rwlock_clockrdlock");
	r.rwlock_wrlock = need("pthread_rwlock_wrlock", NULL);
	r.rwlock_trywrlock = need("pthread_rwlock_trywrlock", NULL);
	r.rwlock_timedwrlock = need("pthread_rwlock_timedwrlock", NULL);
	r.rwlock_clockwrlock = want("pthread_rwlock_clockwrlock");
	r.rwlock_unlock = need("pthread_rwlock_unlock", NULL);
	r.spin_lock = need("pthread_spin_lock", NULL);
	r.spin_trylock = need("pthread_spin_trylock", NULL);
	r.spin_unlock = need("pthread_spin_unlock", NULL);
	/* The condvar ABI of glibc 2.3.2 (the default version); the old
	 * GLIBC_2.2.5 layout is not supported. */
	r.cond_wait = need("pthread_cond_wait", "GLIBC_2.3.2");
	r.cond_timedwait = need("pthread_cond_timedwait", "GLIBC_2.3.2");
	r.cond_clockwait = want("pthread_cond_clockwait");
	r.cond_signal = need("pthread_cond_signal", "GLIBC_2.3.2");
	r.cond_broadcast = need("pthread_cond_broadcast", "GLIBC_2.3.2");
	r.barrier_wait = need("pthread_barrier_wait", NULL);
	r.sem_wait = need("sem_wait", NULL);
	r.sem_trywait = need("sem_trywait", NULL);
	r.sem_timedwait = need("sem_timedwait", NULL);
	r.sem_clockwait = want("sem_clockwait");
	r.sem_post = need("sem_post", NULL);
	r.nanosleep = need("nanosleep", NULL);
	r.clock_nanosleep = need("clock_nanosleep", NULL);
	r.usleep = need("usleep", NULL);
	r.sleep = need("sleep", NULL);
	r.sched_yield = need("sched_yield", NULL);
	r.read = need("read", NULL);
	r.readv = need("readv", NULL);
	r.pread = need("pread", NULL);
	r.preadv = need("preadv", NULL);
	r.write = need("write", NULL);
	r.writev = need("writev", NULL);
	r.pwrite = need("pwrite", NULL);
	r.pwritev = need("pwritev", NULL);
	r.recv = need("recv", NULL);
	r.recvfrom = need("recvfrom", NULL);
	r.recvmsg = need("recvmsg", NULL);
	r.recvmmsg = need("recvmmsg", NULL);
	r.send = need("send", NULL);
	r.sendto = need("sendto", NULL);
	r.sendmsg = need("sendmsg", NULL);
	r.sendmmsg = need("sendmmsg", NULL);
	r.accept = need("accept", NULL);
	r.accept4 = need("accept4", NULL);
	r.connect = need("connect", NULL);
	r.poll = need("poll", NULL);
	r.ppoll = need("ppoll", NULL);
	r.select = need("select", NULL);
	r.pselect = need("pselect", NULL);
	r.epoll_wait = need("epoll_wait", NULL);
	r.epoll_pwait = need("epoll_pwait", NULL);
	r.open = need("open", NULL);
	r.openat = need("openat", NULL);
	r.creat = need("creat", NULL);
	r.fsync = need("fsync", NULL);
	r.fdatasync = need("fdatasync", NULL);
	r.flock = need("flock", NULL);
	r.fcntl = need("fcntl", NULL);
	r.sendfile = need("sendfile", NULL);
	r.splice = need("splice", NULL);
	r.waitpid = need("waitpid", NULL);
	r.wait = need("wait", NULL);
	r.wait4 = need("wait4", NULL);
	r.waitid = need("waitid", NULL);
	r.system = need("system", NULL);
	r.pclose = need("pclose", NULL);
	r.close = need("close", NULL);
	r.dup = need("dup", NULL);
	r.dup2 = need("dup2", NULL);
	r.dup3 = need("dup3", NULL);
	r.socket = need("socket", NULL);
	r.socketpair = need("socketpair", NULL);
	r.pipe = need("pipe", NULL);
	r.pipe2 = need("pipe2", NULL);
	r.fopen = need("fopen", NULL);
	r.fdopen = need("fdopen", NULL);
	r.fclose = need("fclose", NULL);
	r._exit = need("_exit", NULL);
	r._Exit = need("_Exit", NULL);
	r.quick_exit = need("quick_exit", NULL);
	r.execve = need("execve", NULL);
	r.execvpe = need("execvpe", NULL);
	r.fexecve = need("fexecve", NULL);
	/* Publish field by field: concurrent resolvers store the same values. */
	void **dst = (void **)&gt_real, **src = (void **)&r;
	for (size_t i = 0; i < sizeof r / sizeof(void *); i++)
		__atomic_store_n(&dst[i], src[i], __ATOMIC_RELEASE);
}
