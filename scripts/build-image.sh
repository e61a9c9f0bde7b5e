#!/bin/sh
# Builds the static runner and a runtime image offline on the local engine,
# tags it for humans, and prints only the immutable image ID (sha256:...)
# on stdout: pass that ID to --image. The same source gives the same ID on
# any engine that loads docker-save archives: see scripts/reproducible.
#
# Usage: scripts/build-image.sh [KIND] [--arch ARCH] [--rebuild] [--update-lock] [--lock FILE]
#            [--with PKG,...] [--wheels DIR --requirements FILE [--startup-hooks]] [--preload MOD,...]
#        scripts/build-image.sh KIND --base NAME@sha256:<64 hex>|sha256:<64 hex>
#
# KIND is a line of isolation/container/images/kinds (the first, the reference
# Starlark image, when none is named); isolation/container/images/KIND/Dockerfile
# builds it from the runner and, unless its root is none, the root/ that
# scripts/ROOT-root.sh unpacks from the Debian packages pinned in
# isolation/container/images/KIND/ARCH.lock (--lock FILE: another lock;
# --update-lock: pin the mirror's current versions first, resolving them
# anew from isolation/container/images/KIND/packages where the kind has one).
# --base puts the runner, /tmp 1777 and KIND's labels on a pinned image
# that has KIND's interpreter or compiler instead (never pulled).
#
# ARCH (amd64 or arm64) is the engine's own by default: docker version's
# Server.Arch, so DOCKER_HOST or a docker context that names an arm64
# engine builds for arm64. --arch says which is meant and fails if the
# engine is another: the builder stamps the engine's architecture into
# the image. The Debian-based images' build-time steps (Python's
# bytecode, matplotlib's font cache) run an arm64 program here under
# qemu-user when this machine is not arm64.
#
# An image built from the same inputs is on the engine already when the
# engine holds the tag synapse-inputs:KIND-<hash>: the hash of the kind,
# the architecture, the runner's bytes (reproducible, so they are its
# source's and its toolchain's), the lock's contents, every other file of
# isolation/container/images and the build scripts. Then nothing is built and its
# ID is printed. --rebuild builds anyway (a reproducibility check must);
# --update-lock always builds.
#
# An operator's own packages, baked in (never fetched at run time):
#   --with PKG,...  Debian 12 packages and what they need, pinned with the
#                   kind's own in --lock FILE, a lock of the operator's
#                   (--update-lock resolves and writes it: debian-lock.sh
#                   --with, which says what it refuses: a shell, perl, a
#                   package manager, one the kind leaves out); without
#                   --update-lock, FILE must pin each PKG already.
#   --wheels DIR --requirements FILE  (python, science) the wheels of DIR
#                   that FILE's lines pin, each name==version with its
#                   --hash=sha256:..., unpacked into the site directory by
#                   scripts/wheelhouse, which refuses any line before
#                   anything is built, and a wheel that installs what
#                   Python's site runs at every start (a *.pth at the top
#                   of the site directory, sitecustomize, usercustomize).
#   --startup-hooks  (with --wheels) installs those too: they run in the
#                   image's containers at every start, never at build
#                   time, since the image's Python runs here without site.
#   --preload MOD,...  (python, science) the modules a warm container of the
#                   image imports ahead (its preload label, replacing the
#                   kind's), each found in the image at build time.
# The image's labels then record the lock's and the requirements file's
# SHA-256 (io.synapse-isolation.debian-lock, .requirements; doctor shows
# them) and --startup-hooks (.startup-hooks), its tag is the kind's with
# own-<12 hex of them> (any --lock but the kind's own makes such an
# image), and the same inputs give the same ID.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
images=$root/isolation/container/images
. "$root/scripts/kinds.sh"
. "$root/scripts/operator.sh"
kind=$(image_kinds | head -n 1)
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
  kind=$1
  shift
fi
if ! prep=$(image_field "$kind" root 2>/dev/null) || ! tag=$(image_field "$kind" tag 2>/dev/null); then
  echo "usage: scripts/build-image.sh [$(image_kinds | paste -sd '|' -)] [--arch amd64|arm64] [--rebuild] [--update-lock] [--lock FILE] [--with PKG,...] [--wheels DIR --requirements FILE [--startup-hooks]] [--preload MOD,...] | KIND --base IMAGE" >&2
  exit 2
fi
tag=${SYNAPSE_IMAGE_TAG:-$tag}
if [ "$prep" != none ] && [ ! -x "$root/scripts/$prep-root.sh" ]; then
  echo "build-image: isolation/container/images/kinds says $kind's root is $prep, and there is no scripts/$prep-root.sh" >&2
  exit 2
fi
# --arch, --rebuild and the operator's flags are taken out of the
# arguments; the rest are the kind's. The lock they name (--lock) is
# noted for the inputs' hash.
arch=""
rebuild=false
update=false
lock=""
with=""
wheels=""
reqs=""
preload=""
hooks=false
n=$#
while [ "$n" -gt 0 ]; do
  n=$((n - 1))
  case $1 in
    --arch|--with|--wheels|--requirements|--preload)
      [ $# -ge 2 ] || { echo "build-image: $1 needs a value" >&2; exit 2; }
      case $1 in
        --arch) arch=$2 ;;
        --with) with=$2 ;;
        --wheels) wheels=$2 ;;
        --requirements) reqs=$2 ;;
        --preload) preload=$2 ;;
      esac
      shift 2
      n=$((n - 1))
      continue ;;
    --rebuild)
      rebuild=true
      shift
      continue ;;
    --startup-hooks)
      hooks=true
      shift
      continue ;;
    --update-lock) rebuild=true update=true ;;
    --lock) lock=${2:-} ;;
  esac
  set -- "$@" "$1"
  shift
done
if ! engine=$(docker version --format '{{.Server.Arch}}' 2>/dev/null) || [ -z "$engine" ]; then
  echo "build-image: cannot reach the Docker engine (docker version)" >&2
  exit 1
fi
case ${arch:=$engine} in
  amd64|arm64) ;;
  *) echo "build-image: images are built for amd64 or arm64, not \"$arch\" (the engine is $engine)" >&2; exit 2 ;;
esac
if [ "$arch" != "$engine" ]; then
  echo "--arch $arch: the engine is $engine, and it builds only its own architecture; reach an $arch engine with DOCKER_HOST or docker context" >&2
  exit 2
fi
if [ "$prep" = none ] && [ $# -gt 0 ]; then
  echo "build-image: the $kind image takes no $1" >&2
  exit 2
elif [ "$prep" != none ] && [ "${1:-}" != --base ]; then
  set -- --arch "$arch" "$@"
fi
base=""
if [ "${1:-}" = --base ]; then
  base=${2:-}
  # Pinned only: a tag could name other bytes tomorrow.
  if ! printf '%s\n' "$base" | grep -Eqx '([^@[:space:]]+@)?sha256:[0-9a-f]{64}'; then
    echo "--base: must be pinned, NAME@sha256:<64 hex> or an image ID sha256:<64 hex> (got \"$base\")" >&2
    exit 2
  fi
  # Never pulled: FROM a reference the engine lacks would go to a registry.
  if ! docker image inspect "$base" >/dev/null 2>&1; then
    echo "--base: $base is not on this engine (nothing is pulled; docker pull it yourself first)" >&2
    exit 1
  fi
  shift 2
fi
project=$images/$kind/$arch.lock
[ -n "$lock" ] || [ "$prep" = none ] || [ -n "$base" ] || lock=$project
operator_check
if [ -n "$lock" ] && [ ! -f "$lock" ] && ! $update; then
  echo "build-image: no $lock: pin the $kind image's packages first: scripts/build-image.sh $kind --arch $arch --update-lock" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
# step TEXT: a line on stderr per step; stdout is the image ID alone.
step() { echo "build-image: $*" >&2; }
operator_prepare
# The operator's lock is written now: the root script builds from it, and
# must not resolve it anew as the kind's own.
if [ -n "$with" ] && $update; then
  for arg; do
    shift
    [ "$arg" = --update-lock ] || set -- "$@" "$arg"
  done
fi
[ -z "$wheels" ] || set -- "$@" --wheels "$wheels" --requirements "$reqs" --wheelhouse "$work/wheelhouse"
! $hooks || set -- "$@" --startup-hooks
[ -z "$preload" ] || set -- "$@" --preload "$preload"
# An image of an operator's set is not the kind's: its tag says which set.
if [ -z "${SYNAPSE_IMAGE_TAG:-}" ] && own=$(operator_labels) && [ -n "$own" ]; then
  tag=${tag%:*}:own-$(echo "$own" | sha256sum | cut -c1-12)
fi

step "building the runner for linux/$arch (static, reproducible)"

# Static, path-free, build-id-free: the same source gives the same bytes.
CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -C "$root" -trimpath -buildvcs=false -ldflags='-s -w -buildid=' \
  -o "$work/runner" ./isolation/container/runner
CGO_ENABLED=0 go build -C "$root" -trimpath -buildvcs=false -ldflags='-s -w -buildid=' -o "$work/reproducible" ./scripts/reproducible

# inputs prints the hash of everything the image is made from: the lock
# it is built from, and every other file of isolation/container/images
# by name (any kind's Dockerfile or data, as any build script, may be
# shared).
inputs() {
  {
    printf 'kind %s arch %s base %s\n' "$kind" "$arch" "$base"
    cat "$work/runner" "$work/reproducible"
    [ ! -f "$lock" ] || cat "$lock"
    find "$images" -type f ! -name '*.lock' | LC_ALL=C sort | while read -r f; do
      printf '%s\n' "${f#"$images"/}"
      cat "$f"
    done
    cat "$root"/scripts/*.sh
    # The wheels: the requirements pin their bytes, the choice names them,
    # and scripts/wheelhouse unpacks them; the operator's labels (the
    # preload among them) are the image's config.
    [ -z "$wheels" ] || cat "$reqs" "$work/wheels.chosen" "$root"/scripts/wheelhouse/*.go
    operator_labels
  } | sha256sum | cut -c1-40
}
cached=synapse-inputs:$kind-$(inputs)
if ! $rebuild && id=$(docker image inspect --format '{{.Id}}' "$cached" 2>/dev/null); then
  docker tag "$id" "$tag"
  step "done: $tag is $id, built before from the same inputs ($cached)"
  echo "$id"
  exit 0
fi
mkdir "$work/context"
if [ -n "$base" ]; then
  # The base's /tmp, if it has one, gets mode 1777: COPY of a directory's
  # contents applies each entry's mode. The kind's labels (one line each
  # in its Dockerfile) say what the base runs.
  mkdir -p "$work/context/root/tmp"
  chmod 1777 "$work/context/root/tmp"
  {
    printf 'FROM %s\n' "$base"
    grep '^LABEL ' "$images/$kind/Dockerfile" || true
    printf 'COPY root/ /\nCOPY runner /runner\nUSER 65534:65534\nENTRYPOINT ["/runner"]\n'
  } >"$work/context/Dockerfile"
else
  [ "$prep" = none ] || "$root/scripts/$prep-root.sh" "$kind" "$work/context" "$@"
  cp "$images/$kind/Dockerfile" "$work/context/Dockerfile"
  operator_labels >>"$work/context/Dockerfile"
fi
cp "$work/runner" "$work/context/"
step "building the $kind image on the engine (docker build, offline)"
# COPY keeps file times in the layer; pin them so the layer is stable.
find "$work/context" -exec touch -h -d @0 {} +

# One build at a time on the engine from here to the end (the lock goes
# with the script's descriptor 9): the builder takes a step from its cache
# as another build's intermediate image, and the other build's docker rmi
# below removes that image with its own, failing this one's export
# ("unknown parent image ID"). The steps before, the slow ones, still run
# side by side (scripts/test.sh builds every kind at once).
state=${SYNAPSE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/synapse-isolation}
mkdir -p "$state"
exec 9>"$state/build.lock"
flock 9
# docker's stderr (a deprecation notice for the legacy builder) is shown
# only if the build fails.
if ! built=$(SOURCE_DATE_EPOCH=0 docker build --quiet --pull=false "$work/context" 2>"$work/build.err"); then
  cat "$work/build.err" >&2
  exit 1
fi
step "pinning its times and build container (docker save, rewrite, docker load)"
# The builder stamps build times and its build container into the image
# config; rewrite those so the ID depends only on the content.
docker save "$built" | "$work/reproducible" "$tag" | docker load --quiet >/dev/null
id=$(docker image inspect --format '{{.Id}}' "$tag")
if [ "$(docker image inspect --format '{{.Architecture}}' "$id")" != "$arch" ]; then
  echo "build-image: $id is not an $arch image" >&2
  exit 1
fi
if [ "$id" != "$built" ]; then
  docker rmi "$built" >/dev/null 2>&1 || true
fi
docker tag "$id" "$cached"
step "done: $tag is $id"
echo "$id"
