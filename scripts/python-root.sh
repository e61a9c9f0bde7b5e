#!/bin/sh
# Prepares the build context of a Python image in CONTEXT (the kinds
# whose root is python in isolation/container/images/kinds): Debian's python3.11 and
# the libraries it loads, and its time zone data (tzdata), unpacked from
# the .debs pinned in isolation/container/images/KIND/ARCH.lock (versions and
# SHA-256), the standard library compiled ahead of time, /tmp 1777,
# /etc/passwd and /etc/group naming the sandbox user; build-image.sh adds
# the Dockerfile and the runner and builds it. No shell, no package
# manager: nothing of a .deb's maintainer scripts runs, and none of them
# is in the list.
#
# The image's interpreter runs here at build time (it compiles, it finds
# the preload) and the root holds an operator's code: wheels, Debian
# packages. None of it runs here: the interpreter runs with -I (no
# environment variables, no user site, no script directory on the path)
# and -S (no site module, so no *.pth of a site directory and no
# sitecustomize or usercustomize is run), its path the standard library's
# and, where a step needs them, the site directories named in the step.
#
# Usage: python-root.sh KIND CONTEXT [--arch ARCH] [--update-lock [--only-lock]] [--lock FILE]
#          [--wheels DIR --requirements FILE --wheelhouse BIN [--startup-hooks]] [--preload MOD,...]
#        python-root.sh KIND CONTEXT --site-only [--arch ARCH] [--wheels ...] [--preload MOD,...]
#   --arch ARCH    amd64 or arm64 (this machine's by default); another's
#                  interpreter compiles under qemu-user (debian-apt.sh)
#   --update-lock  pin the mirror's current versions in the lock first
#   --only-lock    stop once the lock is renewed
#   --lock FILE    read (and with --update-lock write) FILE instead
#   --wheels DIR --requirements FILE --wheelhouse BIN
#                  an operator's wheels, installed into the site
#                  directory by BIN (scripts/wheelhouse) before the
#                  bytecode is compiled
#   --startup-hooks  BIN installs what Python's site runs at every start
#                  (a *.pth, sitecustomize, usercustomize), which it
#                  refuses otherwise: it runs in the image's containers
#   --preload MOD,...  modules the image's preload label will name: each
#                  must be found in the root, or the build fails
#   --site-only    CONTEXT's root is unpacked already (science-root.sh
#                  sets up its own packages first, with no wheel there):
#                  the wheels, the preload and the site directory's
#                  bytecode alone
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kind=$1
ctx=$2
shift 2
update=false
only=false
arch=$(dpkg --print-architecture)
wheels=""
reqs=""
wheelhouse=""
preload=""
hooks=""
site_only=false
prev=""
# The wheels' arguments are this script's; the rest are debian-root.sh's.
for arg; do
  shift
  case $prev in
    --wheels) wheels=$arg ;;
    --requirements) reqs=$arg ;;
    --wheelhouse) wheelhouse=$arg ;;
    --preload) preload=$arg ;;
  esac
  case $arg in
    --update-lock) update=true ;;
    --only-lock) only=true ;;
    --startup-hooks) hooks=--startup-hooks ;;
    --site-only) site_only=true ;;
  esac
  [ "$prev" != --arch ] || arch=$arg
  case "$prev $arg " in
    --wheels\ *|--requirements\ *|--wheelhouse\ *|--preload\ *|*\ --wheels\ |*\ --requirements\ |*\ --wheelhouse\ |*\ --preload\ ) ;;
    *\ --startup-hooks\ |*\ --site-only\ ) ;;
    *) set -- "$@" "$arg" ;;
  esac
  prev=$arg
done
step() { echo "$kind image: $*" >&2; }

# The fetch, the checks against the lock, the unpacking, /tmp and
# /etc/passwd and /etc/group: debian-root.sh, shared with the compilers'
# images; it checks the arguments.
if ! $site_only; then
  "$top/scripts/debian-root.sh" "$kind" "$ctx" "$@"
  if $update && $only; then
    exit 0
  fi
fi
rootfs=$ctx/root
. "$top/scripts/debian-apt.sh"
debian_arch "$arch"
# shellcheck disable=SC2046 # two words: the triplet and the loader
set -- $(debian_triplet "$arch")
triplet=$1 loader=$2
ln -sf python3.11 "$rootfs/usr/bin/python3"
site=usr/lib/python3/dist-packages
# The kind's own packages outside the standard library are compiled here
# for a python root, with the wheels; a science root compiles the
# standard library here, then its packages with the wheels once it has
# patched them (--site-only), so that no wheel is there while it does.
. "$top/scripts/kinds.sh"
trees=usr/lib/python3.11
with_site=true
if $site_only; then
  trees=""
elif [ "$(image_field "$kind" root)" != python ]; then
  with_site=false
fi
if $with_site; then
  if [ -n "$wheels" ]; then
    step "installing the wheels $(basename "$reqs") pins into /$site"
    mkdir -p "$rootfs/$site"
    # shellcheck disable=SC2086 # --startup-hooks or nothing
    "$wheelhouse" install --wheels "$wheels" --requirements "$reqs" --python 3.11 --arch "$arch" --site "$rootfs/$site" $hooks
  fi
  # A preload that names a module the image lacks would be found out only
  # by a warm container that starts cold: found here instead, by the
  # image's own interpreter, its paths the root's (its prefix is the
  # root's usr, and the site directories site would add in the image are
  # named, as the root's), without running any module's code (find_spec
  # of each top-level name).
  if [ -n "$preload" ]; then
    step "finding the modules of --preload $preload"
    # shellcheck disable=SC2086
    if ! $run_prefix "$rootfs$loader" --library-path "$rootfs/lib/$triplet:$rootfs/usr/lib/$triplet" \
      "$rootfs/usr/bin/python3.11" -I -S -c '
import importlib.util, sys
root, kind, preload = sys.argv[1:]
sys.path += [root + d for d in ("/usr/local/lib/python3.11/dist-packages", "/usr/lib/python3/dist-packages", "/usr/lib/python3.11/dist-packages")]
missing = [m for m in preload.split(",") if importlib.util.find_spec(m.split(".")[0]) is None]
if missing:
    sys.exit("%s image: --preload: no module %s in the image" % (kind, ", ".join(missing)))
' "$rootfs" "$kind" "$preload"; then
      exit 1
    fi
  fi
  [ ! -d "$rootfs/$site" ] || trees="$trees $site"
fi

# The root is read-only at run time, so Python can write no bytecode cache:
# compile the whole standard library now, with the image's own interpreter.
# Each file in a fresh interpreter: marshal's output depends on reference
# counts, so files compiled in one process (compileall) differ from build
# to build; alone, each compiles the same every time. unchecked-hash makes
# a .pyc depend on its source's content, not its time, and the recorded
# path is the image's. For another architecture, its interpreter runs
# under qemu-user ($run_prefix), still the image's own. Compiling runs no
# code of the file's.
[ -n "$trees" ] || exit 0
step "compiling $trees ahead of time, one file per interpreter"
compile='import importlib.util as u, py_compile as p, sys
for f in sys.argv[1:]:
    p.compile(f, cfile=u.cache_from_source(f), dfile="/" + f, doraise=True,
              invalidation_mode=p.PycInvalidationMode.UNCHECKED_HASH)'
(
  cd "$rootfs"
  # shellcheck disable=SC2086 # the trees and the prefix, split on purpose
  find $trees -name '*.py' | sort | xargs -n 1 -P "$(nproc)" $run_prefix \
    "$rootfs$loader" --library-path "$rootfs/lib/$triplet:$rootfs/usr/lib/$triplet" \
    "$rootfs/usr/bin/python3.11" -I -S -c "$compile"
)
