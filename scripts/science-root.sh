#!/bin/sh
# Prepares the build context of the scientific Python image in CONTEXT
# (the kinds whose root is science in isolation/container/images/kinds): a Python
# image's root (python-root.sh, from the packages pinned in
# isolation/container/images/KIND/ARCH.lock: python3.11 with numpy, scipy, sympy,
# pandas, matplotlib, networkx and what they load), then what the skipped
# maintainer scripts and a writable root would otherwise do: BLAS and
# LAPACK bound to OpenBLAS, matplotlib drawing with Agg and finding its
# font cache, every installed module compiled ahead of time, the largest
# trees in layers/ of their own. build-image.sh adds the Dockerfile and
# the runner and builds it.
#
# Usage: science-root.sh KIND CONTEXT [--arch ARCH] [--update-lock] [--lock FILE]
#          [--wheels DIR --requirements FILE --wheelhouse BIN [--startup-hooks]] [--preload MOD,...]
#   --arch ARCH    amd64 or arm64, this machine's by default
#   --update-lock  resolve and pin the packages anew first (debian-lock.sh,
#                  from isolation/container/images/KIND/packages)
#   --lock FILE    read (and with --update-lock write) FILE instead
#   --wheels ..., --startup-hooks, --preload ...  an operator's wheels and
#                  preload, as python-root.sh installs and finds them,
#                  once matplotlib's font cache is built: no wheel is in
#                  the root while the image's Python imports matplotlib
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kind=$1
ctx=$2
shift 2
arch=$(dpkg --print-architecture)
lock=""
update=false
wheels=""
reqs=""
wheelhouse=""
preload=""
hooks=""
while [ $# -gt 0 ]; do
  case $1 in
    --arch) arch=$2; shift ;;
    --update-lock) update=true ;;
    --lock) lock=$2; shift ;;
    --wheels) wheels=$2; shift ;;
    --requirements) reqs=$2; shift ;;
    --wheelhouse) wheelhouse=$2; shift ;;
    --preload) preload=$2; shift ;;
    --startup-hooks) hooks=--startup-hooks ;;
    *) echo "$kind image: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
lock=${lock:-$top/isolation/container/images/$kind/$arch.lock}
step() { echo "$kind image: $*" >&2; }
. "$top/scripts/debian-apt.sh"
debian_arch "$arch"
# shellcheck disable=SC2046 # two words: the triplet and the loader
set -- $(debian_triplet "$arch")
triplet=$1 loader=$2

if $update; then
  "$top/scripts/debian-lock.sh" "$kind" --arch "$arch" --lock "$lock"
fi
# The fetch, the checks against the lock, the unpacking, /etc/passwd and
# /etc/group, /tmp and the standard library's bytecode are the Python
# image's, done the same way; the wheels come after matplotlib's steps.
"$top/scripts/python-root.sh" "$kind" "$ctx" --arch "$arch" --lock "$lock"
rootfs=$ctx/root
libdir=$rootfs/usr/lib/$triplet

step "binding BLAS and LAPACK to OpenBLAS (the links update-alternatives would make)"
# numpy and scipy load libblas.so.3 and liblapack.so.3; libopenblas0-pthread
# keeps them in openblas-pthread/ and its postinst links them into the
# library path with update-alternatives, which never runs here. The same
# three links, direct: libopenblas.so.0 too, since those two find it by
# RUNPATH $ORIGIN, the directory of the link they are loaded through.
for lib in libblas.so.3 liblapack.so.3 libopenblas.so.0; do
  [ -e "$libdir/openblas-pthread/$lib" ] || { echo "$kind image: no openblas-pthread/$lib" >&2; exit 1; }
  ln -sfn "openblas-pthread/$lib" "$libdir/$lib"
done

step "setting up matplotlib: the Agg backend, its config dir and font cache"
# Debian's matplotlib reads /etc/matplotlibrc, which names TkAgg: there is
# no Tk nor display here, so Agg, the backend that draws to files.
sed -i 's/^backend *: *TkAgg *$/backend: Agg/' "$rootfs/etc/matplotlibrc"
grep -qx 'backend: Agg' "$rootfs/etc/matplotlibrc" || { echo "$kind image: /etc/matplotlibrc names no TkAgg backend to replace" >&2; exit 1; }
# matplotlib keeps its config and its font cache (a list of the fonts it
# found, built on first import by opening every font: the slow part) in
# MPLCONFIGDIR, else ~/.config/matplotlib and ~/.cache/matplotlib, and
# uses them only if it can write them: otherwise it makes a temporary
# directory in /tmp on every run, warns about it on stderr and rebuilds
# the cache there (a tenth of a second, more with more fonts). The sandbox
# has no MPLCONFIGDIR (only HOME, HOSTNAME and PATH are set, and an image
# ENV would fail attestation), HOME is /nonexistent and the root is
# read-only, so without help every run would do that. Instead matplotlib is patched to use, when the user's
# directory cannot be written and no MPLCONFIGDIR is set, the image's
# /var/cache/matplotlib with the cache built now: read only, found, never
# rebuilt. Nothing matplotlib can do in the image writes there: it writes
# to its cache only when the cache is missing or stale, or for TeX, which
# is not installed. A program can still set MPLCONFIGDIR itself.
mkdir -p "$rootfs/var/cache/matplotlib"
# The patch is text: no Python runs for it.
init=$rootfs/usr/lib/python3/dist-packages/matplotlib/__init__.py
old='    # If the config or cache directory cannot be created or is not a writable'
if [ "$(grep -cxF -- "$old" "$init")" != 1 ]; then
  echo "$kind image: matplotlib/__init__.py has changed, patch it anew" >&2
  exit 1
fi
awk -v old="$old" '$0 == old {
  print "    # synapse-isolation: HOME cannot be written on the read-only root of"
  print "    # the image; its directory, with the font cache built with it, is used."
  print "    if not os.environ.get(\"MPLCONFIGDIR\") and os.path.isdir(\"/var/cache/matplotlib\"):"
  print "        return \"/var/cache/matplotlib\""
} { print }' "$init" >"$init.new"
cat "$init.new" >"$init"
rm "$init.new"
# The cache is built by the image's Python importing matplotlib, in the
# image's root, since matplotlib looks for fonts by absolute paths: no
# wheel of the operator's is there yet, it runs as nobody (a chroot as
# nobody, else a user namespace whose one user is nobody: never root,
# which could leave a chroot), and nobody may write only the cache's
# directory and /tmp, emptied after. Python runs without site (-S, no
# *.pth, no sitecustomize), user site (-s) or the script's directory
# (-P), its path the standard library's and the packages' directory;
# env -i is its whole environment, which -I would drop along with
# PYTHONHASHSEED: sorted and with a fixed hash seed, the cache is the
# same bytes on every build. For another architecture, qemu-user runs
# the interpreter, copied into the root for that step alone.
if [ "$(id -u)" = 0 ]; then
  chown 65534:65534 "$rootfs/var/cache/matplotlib"
  set -- chroot --userspec=65534:65534 "$rootfs"
else
  set -- unshare --user --map-user=65534 --map-group=65534 --root="$rootfs"
fi
if [ -n "$run_prefix" ]; then
  cp "$run_prefix" "$rootfs/.qemu"
  set -- "$@" /.qemu
fi
env -i PATH=/usr/bin:/usr/sbin:/bin:/sbin HOME=/nonexistent PYTHONHASHSEED=0 MPLCONFIGDIR=/var/cache/matplotlib \
  "$@" /usr/bin/python3.11 -S -s -P -B -c '
import sys
sys.path.append("/usr/lib/python3/dist-packages")
import matplotlib
from matplotlib import font_manager as fm
m = fm.fontManager
m.ttflist.sort(key=lambda f: f.fname)
m.afmlist.sort(key=lambda f: f.fname)
fm.json_dump(m, f"{matplotlib.get_cachedir()}/fontlist-v{fm.FontManager.__version__}.json")
'
rm -f "$rootfs/.qemu"
[ "$(id -u)" != 0 ] || chown -R 0:0 "$rootfs/var/cache/matplotlib"
find "$rootfs/tmp" -mindepth 1 -delete

# The packages' test suites: no module of theirs imports them, most need
# pytest, which is not here, and they are a fifth of the image.
find "$rootfs/usr/lib/python3/dist-packages" -type d -name tests -prune -exec rm -rf {} +

# As python-root.sh does for the standard library: the operator's wheels
# installed, the preload found, and every installed module compiled ahead
# of time, patched matplotlib included, since nothing can write their
# bytecode at run time.
"$top/scripts/python-root.sh" "$kind" "$ctx" --site-only --arch "$arch" \
  ${wheels:+--wheels "$wheels" --requirements "$reqs" --wheelhouse "$wheelhouse"} $hooks ${preload:+--preload "$preload"}

# scripts/reproducible reads each layer whole and refuses one over 256 MiB;
# the root is larger, so the biggest trees are layers of their own,
# COPY'd by isolation/container/images/science/Dockerfile in this order: the
# architecture's libraries (usr/lib/TRIPLET) in layers/libraries.
for tree in usr/lib/$triplet usr/lib/python3/dist-packages/scipy usr/lib/python3/dist-packages; do
  layer=$ctx/layers/$(echo "$tree" | sed "s|^usr/lib/$triplet\$|libraries|" | tr / _)
  mkdir -p "$layer/$(dirname "$tree")"
  mv "$rootfs/$tree" "$layer/$tree"
done
