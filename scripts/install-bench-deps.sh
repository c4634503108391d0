#!/usr/bin/env bash
# Install the tools `make bench` compares gotrace with (Debian 12 packages),
# beside what scripts/install-deps.sh installs for building and testing.
# Idempotent: does nothing when everything is already there.
#
#   lttng-tools       lttng and lttng-sessiond (the LTTng peer)
#   liblttng-ust1     liblttng-ust-libc-wrapper.so, liblttng-ust-pthread-wrapper.so
#   liblttng-ust-dev  the unversioned .so names of those wrappers
#   uftrace           the function tracer peer
#   strace ltrace     system-call and library-call tracers
#   valgrind          Helgrind and DRD
#   heaptrack         the heap profiler peer
#   sysbench pigz xz-utils   real programs to trace
#   linux-perf        where gotrace's time goes (perf record / perf stat)
#   time              /usr/bin/time -f %M for peak RSS
# The real-program section (BENCH_ONLY=real; test/bench/real_*.py):
#   openjdk-17-jdk-headless  `java Locks.java` (source-file mode needs the JDK)
#   mariadb-server-core mariadb-client-core
#                     mariadbd, mariadb-install-db and the mariadb client: the
#                     programs of Debian's mariadb-server without its system
#                     service (the benchmark starts its own server on a
#                     private data directory and socket)
#   sysbench          oltp_read_write against it (and the sysbench sections)
#   redis-server redis-tools      redis-server and redis-benchmark
#   memcached libmemcached-tools  memcached and memcaslap (memaslap)
#   ripgrep           rg
#   zstd              heaptrack compresses its files with it
#   nodejs            only when no `node` is on the PATH (a newer node from
#                     elsewhere is used as it is)
set -euo pipefail

SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"

PKGS=(lttng-tools liblttng-ust1 liblttng-ust-dev uftrace strace ltrace valgrind heaptrack
      sysbench pigz xz-utils linux-perf time
      openjdk-17-jdk-headless mariadb-server-core mariadb-client-core redis-server redis-tools
      memcached libmemcached-tools ripgrep zstd)
command -v node >/dev/null 2>&1 || PKGS+=(nodejs)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-bench-deps: everything is already installed"
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
# Another apt-get may hold the dpkg lock (a parallel install): wait for it.
apt() {
  local i
  for i in $(seq 1 10); do
    if $SUDO apt-get -o DPkg::Lock::Timeout=60 "$@"; then return 0; fi
    echo "install-bench-deps: apt-get $1 failed (lock held?), retrying in 10 s" >&2
    sleep 10
  done
  return 1
}
# Update the lists only when a package is unknown to them.
if ! apt-cache show "${missing[@]}" >/dev/null 2>&1; then
  apt update -q
fi
apt install -y -q --no-install-recommends "${missing[@]}"
