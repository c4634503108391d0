#!/usr/bin/env bash
# make-deb.sh VERSION — build build/gotrace_VERSION_ARCH.deb with debhelper and
# check it with lintian (`make deb`).
#
# The package is built from a copy of the sources (build/deb/gotrace-VERSION)
# with packaging/debian as its debian/ directory; debian/changelog is written
# here from VERSION, the version's one place. The build runs the project's
# `make` and `make install PREFIX=/usr` (packaging/debian/rules).
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: make-deb.sh VERSION}

for tool in dpkg-buildpackage dh lintian; do
  if ! command -v "$tool" >/dev/null; then
    echo "make-deb: $tool is missing: run 'make deps' (it installs debhelper and lintian)" >&2
    exit 1
  fi
done

stage=build/deb
src=$stage/gotrace-$version
rm -rf "$stage"
mkdir -p "$src"
# What the build needs, nothing of build/ or the tests.
cp -a Makefile VERSION README.md core encoder interpose tools include "$src"/
mkdir -p "$src/docs" "$src/packaging"
cp -a docs/gotrace.1 "$src/docs/"
cp -a packaging/gotrace.pc.in packaging/gotrace.bash "$src/packaging/"
cp -a packaging/debian "$src/debian"

# The changelog's date: the last commit's when this is a git checkout (the
# same sources give the same package), else now.
when=$(git log -1 --format=%cD 2>/dev/null || date -R)
cat > "$src/debian/changelog" <<CHANGES
gotrace ($version) unstable; urgency=medium

  * gotrace $version (see README.md and the git history).

 -- gotrace developers <gotrace@example.org>  $when
CHANGES

(cd "$src" && dpkg-buildpackage -b -us -uc --no-sign) > "$stage/build.log" 2>&1 || {
  echo "make-deb: dpkg-buildpackage failed; the last lines of $stage/build.log:" >&2
  tail -n 30 "$stage/build.log" >&2
  exit 1
}
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
deb=gotrace_${version}_${arch}.deb
cp "$stage/$deb" build/"$deb"

# lintian's errors fail the build; its warnings and notes are shown.
lintian --fail-on error --display-info "$stage"/gotrace_${version}_${arch}.changes | tee "$stage/lintian.txt" >&2 || {
  echo "make-deb: lintian found errors (above)" >&2
  exit 1
}
size=$(stat -c %s build/"$deb")
echo "make-deb: build/$deb ($size bytes); lintian: $(grep -c '^E:' "$stage/lintian.txt" || true) errors, $(grep -c '^W:' "$stage/lintian.txt" || true) warnings"
