#!/usr/bin/env bash
# Install everything gotrace needs to build and test on Debian 12 (bookworm).
#
# Go 1.23 comes from bookworm-backports, the newest Go from trixie-backports.
# Both suites are added in an extra deb822 file that reuses the URIs and the
# key of the system's own debian.sources; trixie-backports is pinned low so
# nothing but the Go packages we name ever comes from it.
set -euo pipefail

SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"

GO_OLD=1.23          # the oldest reader we promise to satisfy
GO_NEW=1.27          # the newest Debian ships in trixie-backports
SOURCES=/etc/apt/sources.list.d/gotrace-backports.sources
PIN=/etc/apt/preferences.d/gotrace-backports

have_all() {
  [ -x /usr/lib/go-$GO_OLD/bin/go ] && [ -x /usr/lib/go-$GO_NEW/bin/go ] || return 1
  for p in "$@"; do dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' || return 1; done
}

PKGS=(build-essential pkg-config libelf-dev libdw-dev libcriterion-dev
      python3 curl pigz g++ gdb valgrind strace
      memcached libmemcached-tools    # a real server and its load generator (tests, bench)
      libjemalloc-dev heaptrack       # another allocator (tests); the heap peer (bench)
      clang libclang-rt-14-dev        # libFuzzer for `make fuzz`
      chromium fonts-liberation       # the viewer test (headless)
      stress-ng                       # torture tests (test_torture.py)
      dwz                             # dwz debug files (test_symbols_fds.py)
      git zstd xz-utils p7zip-full nodejs redis-server   # real programs (test_real_programs.py)
      debhelper lintian dpkg-dev man-db bash-completion) # make deb and its test (test_package.py)

if have_all "${PKGS[@]}"; then
  echo "install-deps: everything is already installed"
  exit 0
fi

# Reuse the archive URI and the keyring of the system's own Debian source: this
# script names no archive of its own. The stanza used is the one that carries
# the release's main suite (bookworm), not the security archive.
main_sources=/etc/apt/sources.list.d/debian.sources
if [ ! -r "$main_sources" ]; then
  echo "install-deps: $main_sources not found; gotrace takes the Debian archive" >&2
  echo "install-deps: address and key from it. Add the backports suites by hand" >&2
  echo "install-deps: (see README, 'Go for reading traces') or convert to deb822." >&2
  exit 1
fi
read -r uri key < <(awk '
  /^[[:space:]]*$/ { if (u != "" && s ~ /(^| )bookworm( |$)/) { print u, k; found=1; exit } u=""; k=""; s=""; next }
  /^URIs:/      { u=$2 }
  /^Suites:/    { $1=""; s=$0" " }
  /^Signed-By:/ { k=$2 }
  END { if (!found && u != "" && s ~ /(^| )bookworm( |$)/) print u, k }' "$main_sources") || true
if [ -z "${uri:-}" ] || [ -z "${key:-}" ]; then
  echo "install-deps: no stanza with suite 'bookworm', a URIs: and a Signed-By: line in $main_sources;" >&2
  echo "install-deps: cannot add bookworm-backports / trixie-backports from the system's archive." >&2
  exit 1
fi

$SUDO tee "$SOURCES" >/dev/null <<SRC
# Added by gotrace's scripts/install-deps.sh: Go $GO_OLD and Go $GO_NEW for trace validation.
Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: $key

Types: deb
URIs: $uri
Suites: trixie-backports trixie
Components: main
Signed-By: $key
SRC

$SUDO tee "$PIN" >/dev/null <<PINS
# Never upgrade anything from trixie on its own; only packages named explicitly.
Package: *
Pin: release n=trixie-backports
Pin-Priority: 50

Package: *
Pin: release n=trixie
Pin-Priority: 50
PINS

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${PKGS[@]}"
$SUDO apt-get install -y -q --no-install-recommends -t bookworm-backports golang-$GO_OLD-go
$SUDO apt-get install -y -q --no-install-recommends -t trixie-backports golang-$GO_NEW-go golang-$GO_NEW-src

/usr/lib/go-$GO_OLD/bin/go version
/usr/lib/go-$GO_NEW/bin/go version
