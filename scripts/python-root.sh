#!/bin/sh
# Prepares the build context of the Python image in CONTEXT: Debian's
# python3.11 and the libraries it loads, and its time zone data (tzdata),
# unpacked from the .debs pinned in the lock (versions and SHA-256), the
# standard library compiled ahead of time, /tmp 1777, /etc/passwd and
# /etc/group naming the sandbox user, and the image's Dockerfile; build-image.sh adds the
# runner and builds it. No shell, no package manager: nothing of a .deb's
# maintainer scripts runs, and none of them is in the list.
#
# Usage: python-root.sh CONTEXT [--update-lock [--only-lock]] [--lock FILE]
#   --update-lock  pin the mirror's current versions in the lock first
#   --only-lock    stop once the lock is renewed
#   --lock FILE    read (and with --update-lock write) FILE instead
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ctx=$1
shift
lock=$top/isolation/python.lock
update=false
only=false
while [ $# -gt 0 ]; do
  case $1 in
    --update-lock) update=true ;;
    --only-lock) only=true ;;
    --lock) lock=$2; shift ;;
    *) echo "python image: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
# step TEXT: one line on stderr per step, so the minute this takes is
# not silent; stdout is build-image.sh's, the image ID alone.
step() { echo "python image: $*" >&2; }

debs=$ctx/../debs
rootfs=$ctx/root
mkdir -p "$debs" "$rootfs"

# fetch PKG VERSION: downloads the .deb into its own directory. Debian's
# package lists may be missing on a fresh machine: one update, then retry.
updated=false
fetch() {
  mkdir -p "$debs/$1"
  if (cd "$debs/$1" && apt-get download -q "$1=$2" >/dev/null 2>&1); then
    return 0
  fi
  if ! $updated && [ "$(id -u)" = 0 ]; then
    updated=true
    apt-get update -qq >/dev/null 2>&1 || true
    (cd "$debs/$1" && apt-get download -q "$1=$2" >/dev/null 2>&1) && return 0
  fi
  return 1
}

if $update; then
  step "renewing $(basename "$lock") with the mirror's current versions"
  new=$(mktemp)
  while read -r pkg _ _; do
    [ -n "$pkg" ] || continue
    version=$(apt-cache policy "$pkg" | awk '/Candidate:/ {print $2}')
    if [ -z "$version" ] || [ "$version" = "(none)" ] || ! fetch "$pkg" "$version"; then
      echo "python image: $pkg has no version on the mirror" >&2
      exit 1
    fi
    echo "$pkg $version $(sha256sum "$debs/$pkg"/*.deb | cut -d' ' -f1)" >>"$new"
  done <"$lock"
  mv "$new" "$lock"
  $only && exit 0
  rm -rf "$debs"
  mkdir -p "$debs"
fi

step "fetching the $(grep -c . "$lock") packages pinned in $(basename "$lock") (apt-get download, checked against their SHA-256)"
while read -r pkg version sum; do
  [ -n "$pkg" ] || continue
  if ! fetch "$pkg" "$version"; then
    echo "python image: $pkg $version is not on the mirror any more; renew the lock: scripts/build-image.sh python --update-lock" >&2
    exit 1
  fi
  got=$(sha256sum "$debs/$pkg"/*.deb | cut -d' ' -f1)
  if [ "$got" != "$sum" ]; then
    echo "python image: $pkg $version has SHA-256 $got, the lock says $sum" >&2
    exit 1
  fi
done <"$lock"
step "unpacking them into the image's root (no maintainer scripts run)"
while read -r pkg _ _; do
  [ -n "$pkg" ] || continue
  dpkg-deb -x "$debs/$pkg"/*.deb "$rootfs"
done <"$lock"

rm -rf "$rootfs/usr/share/doc" "$rootfs/usr/share/man" "$rootfs/usr/share/info" "$rootfs/usr/share/lintian"
mkdir -p "$rootfs/lib64" "$rootfs/tmp"
ln -sf /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$rootfs/lib64/ld-linux-x86-64.so.2"
ln -sf python3.11 "$rootfs/usr/bin/python3"
# Docker keeps an image directory's mode over the tmpfs mounted on it.
chmod 1777 "$rootfs/tmp"
# The sandbox user and root by name, so getpass, pwd and grp answer as on
# any Debian system (docker also takes HOME from here: /nonexistent).
mkdir -p "$rootfs/etc"
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$rootfs/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"

# The root is read-only at run time, so Python can write no bytecode cache:
# compile the whole standard library now, with the image's own interpreter.
# Each file in a fresh interpreter: marshal's output depends on reference
# counts, so files compiled in one process (compileall) differ from build
# to build; alone, each compiles the same every time. unchecked-hash makes
# a .pyc depend on its source's content, not its time, and the recorded
# path is the image's.
step "compiling the standard library ahead of time, one file per interpreter"
compile='import importlib.util as u, py_compile as p, sys
for f in sys.argv[1:]:
    p.compile(f, cfile=u.cache_from_source(f), dfile="/" + f, doraise=True,
              invalidation_mode=p.PycInvalidationMode.UNCHECKED_HASH)'
(
  cd "$rootfs"
  find usr/lib/python3.11 -name '*.py' | sort | PYTHONHASHSEED=0 xargs -n 1 -P "$(nproc)" \
    "$rootfs/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" \
    --library-path "$rootfs/lib/x86_64-linux-gnu:$rootfs/usr/lib/x86_64-linux-gnu" \
    "$rootfs/usr/bin/python3.11" -E -s -c "$compile"
)

cp "$top/isolation/python.Dockerfile" "$ctx/Dockerfile"
