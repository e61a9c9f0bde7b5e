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
update=false
only=false
for arg in "$@"; do
  case $arg in
    --update-lock) update=true ;;
    --only-lock) only=true ;;
  esac
done
step() { echo "python image: $*" >&2; }

# The fetch, the checks against the lock, the unpacking, /tmp and
# /etc/passwd and /etc/group: debian-root.sh, shared with the compilers'
# images; it checks the arguments.
"$top/scripts/debian-root.sh" python "$ctx" "$@"
if $update && $only; then
  exit 0
fi
rootfs=$ctx/root
ln -sf python3.11 "$rootfs/usr/bin/python3"

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
