#!/bin/sh
# The project's test command: formatting, vet for amd64 and arm64, the
# unit tests with the race detector, then the live boundary suite on the
# images of the quick kinds (isolation/container/images/kinds' tier) under runc and
# gVisor (its quick part). The suite builds its own images and needs a
# Docker engine; under CI=true a missing engine fails it.
#
# scripts/test.sh --heavy runs what changes rarely and costs most: the
# heavy kinds' images, every image's second (reproducibility) build, and
# the emulated arm64 host (scripts/arm64-check.sh). .ci/run runs both.
set -eu
cd "$(dirname "$0")/.."
part=quick
case ${1:-} in
  "") ;;
  --heavy) part=heavy ;;
  *) echo "usage: scripts/test.sh [--heavy]" >&2; exit 2 ;;
esac
began=$(date +%s)
# The image kinds of this part: the quick ones, or all (the heavy part
# tests the quick part's images too).
images=$PWD/isolation/container/images
. scripts/kinds.sh
if [ "$part" = quick ]; then
  kinds=$(image_kinds tier quick)
else
  kinds=$(image_kinds)
fi
# lap NAME: one line on stderr with the seconds a step took.
lap() {
  now=$(date +%s)
  echo "test.sh: $1 took $((now - ${mark:-$began})) s" >&2
  mark=$now
}

# The pinned runsc builds from the start, beside everything else: it is
# the longest of the steps that run in the background and needs nothing
# of the others. Its output and status, and each image's, are kept in
# $ahead; the line of each says how long it took.
ahead=$(mktemp -d)
# Under set -e a failing command in the EXIT trap becomes the script's
# status: kill with no jobs left fails, hence the || true.
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$ahead"' EXIT
(scripts/runsc.sh >"$ahead/runsc" 2>"$ahead/runsc.log"; echo $? >"$ahead/runsc.rc"; echo "test.sh: the pinned runsc was ready after $(($(date +%s) - began)) s" >"$ahead/runsc.time") &
if [ "$part" = quick ]; then
  unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
  if [ -n "$unformatted" ]; then
    echo "gofmt would change: $unformatted" >&2
    exit 1
  fi
fi
# From Debian's packages: runsc, gVisor's release 20221219, which the
# suite's second engine registers as runsc-debian, the old gVisor that the
# tool must refuse (found by its absolute path: the current runsc, pinned
# in scripts/runsc.sh, is another binary, in a cache and not on PATH); zsh
# and fish, whose completion scripts the tests parse; openssh-server, whose sshd the suite
# runs privately on loopback for its SSH engine (the package's own service
# is not started: a policy-rc.d or no init system).
missing=""
for pair in runsc:/usr/bin/runsc zsh:zsh fish:fish openssh-server:/usr/sbin/sshd; do
  command -v "${pair#*:}" >/dev/null 2>&1 || missing="$missing ${pair%%:*}"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing$missing from Debian's packages for the tests" >&2
    # Installing must start no service (the machine's own sshd above all):
    # without a policy-rc.d, one that refuses every start, for the install.
    policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      policy=/usr/sbin/policy-rc.d
      printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy"
    fi
    installed=true
    { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null; } || installed=false
    [ -z "$policy" ] || rm -f "$policy"
    $installed
  else
    echo "missing and not installable here:$missing (without Debian's runsc the second-engine tests skip, and fail under CI=true;" \
      "without zsh or fish their completion scripts go unchecked;" \
      "without openssh-server the SSH engine tests skip, and fail under CI=true)" >&2
  fi
fi
# The Debian-based images' locks pin package versions that Debian's
# mirror may have replaced since: then the tests build from a refreshed
# copy of the lock, say so in one line, and still check that two builds
# give one ID.
if command -v apt-get >/dev/null 2>&1; then
  apt-cache show libc6 >/dev/null 2>&1 || { [ "$(id -u)" = 0 ] && apt-get update -qq >/dev/null 2>&1; } || true
  arch=$(dpkg --print-architecture)
  for kind in $kinds; do
    [ "$(image_field "$kind" root)" != none ] || continue
    lock=isolation/container/images/$kind/$arch.lock
    stale=""
    # One question for the whole lock; only if the mirror lacks one
    # package, one per package, to name each.
    if ! apt-get download --print-uris $(awk 'NF { print $1 "=" $2 }' "$lock") >/dev/null 2>&1; then
      while read -r pkg version _; do
        [ -n "$pkg" ] || continue
        apt-get download --print-uris "$pkg=$version" >/dev/null 2>&1 || stale="$stale $pkg"
      done <"$lock"
    fi
    if [ -n "$stale" ]; then
      scratch=$(mktemp -d)
      cp "$lock" "$scratch/$kind.lock"
      mkdir "$scratch/context"
      scripts/debian-root.sh "$kind" "$scratch/context" --arch "$arch" --update-lock --only-lock --lock "$scratch/$kind.lock"
      echo "$lock is stale (gone from the mirror:$stale); testing with a refreshed copy; renew it: scripts/build-image.sh $kind --arch $arch --update-lock" >&2
      export "SYNAPSE_$(echo "$kind" | tr a-z A-Z)_LOCK=$scratch/$kind.lock"
    fi
  done
fi
lap "setting up the packages the tests need"
# The live suite's images are made while vet and the unit tests run: the
# images' builds wait mostly on the network, the disk and the engine. The
# first kind's (the reference image, the runner alone) is built first, so
# the runner is compiled once into the build cache; the others then find
# it there and build side by side. The suite then finds each image built
# (build-image.sh skips a build of unchanged inputs); one whose build
# failed here is built there again, and its failure said there.
build_kind() {
  lockvar=SYNAPSE_$(echo "$1" | tr a-z A-Z)_LOCK
  eval "lock=\${$lockvar:-}"
  scripts/build-image.sh "$1" ${lock:+--lock "$lock"} >/dev/null 2>"$ahead/$1.log" || echo "$1" >>"$ahead/failed"
  echo "test.sh: the $1 image was ready after $(($(date +%s) - began)) s" >"$ahead/$1.time"
}
for kind in $kinds; do
  if [ ! -e "$ahead/first" ]; then
    echo "$kind" >"$ahead/first"
    (build_kind "$kind"; : >"$ahead/first.done") &
  else
    (while [ ! -e "$ahead/first.done" ]; do sleep 1; done; build_kind "$kind") &
  fi
done
if [ "$part" = quick ]; then
  # With -race, as the unit tests are built: vet compiles the packages'
  # dependencies, and the unit tests then find them in the build cache.
  go vet -race ./...
  # Every package builds and vets for arm64 too, so nothing that only
  # amd64 has (dup2, fork, pause) comes back unseen.
  GOARCH=arm64 go vet ./...
  GOARCH=arm64 go build ./...
  # The sizes a change should not grow unseen (isolation/'s files, its go
  # doc, big files and functions): for the log's reader, not a gate.
  go run -race ./scripts/shape >&2
  lap "vet"
  # Four packages at a time, not one per core: a package's tests wait
  # much of their time on a fake docker's deadlines.
  go test -race -count=1 -p 4 $(go list ./... | grep -v -e '/tests$' -e '/tests/arm64$')
  lap "unit tests"
fi
wait
cat "$ahead"/*.time >&2 2>/dev/null || true
for kind in $(cat "$ahead/failed" 2>/dev/null); do
  echo "test.sh: building the $kind image ahead failed; the suite builds it again:" >&2
  tail -n 5 "$ahead/$kind.log" >&2
done
lap "waiting for the images and the pinned runsc, made beside vet and the unit tests"
if [ -d tests ] && [ -n "$(ls tests/*_test.go 2>/dev/null)" ]; then
  # The current gVisor, pinned in scripts/runsc.sh and built once into the
  # user's cache, which the second engine registers as runsc. Without it
  # the second-engine tests skip; under CI=true that is a failure, so stop
  # here rather than after the suite.
  if [ "$(cat "$ahead/runsc.rc")" = 0 ]; then
    SYNAPSE_RUNSC=$(cat "$ahead/runsc")
    export SYNAPSE_RUNSC
  else
    cat "$ahead/runsc.log" >&2
    echo "scripts/runsc.sh could not build the pinned runsc: the second-engine tests skip (and fail under CI=true)" >&2
    [ "${CI:-}" != true ] || exit 1
  fi
  # Verbose, so the log names every boundary test that ran and passed.
  # Four tests at a time, not one per core: a live test spends its time
  # waiting for the engine. Eight were no faster on two cores, which the
  # engine's containers keep busy by then.
  SYNAPSE_SUITE=$part go test -race -count=1 -v -parallel 4 -timeout 30m ./tests/
  lap "the live suite's $part part"
  if [ "$part" = heavy ]; then
    # arm64: the engine-free packages' tests compiled for arm64 and run under
    # qemu-user, then an arm64 engine under qemu-system-aarch64 (its cost:
    # scripts/arm64-check.sh).
    scripts/arm64-check.sh
    lap "the arm64 check"
  fi
fi
echo "test.sh: the $part part passed in $(($(date +%s) - began)) s" >&2
