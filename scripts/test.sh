#!/bin/sh
# The project's test command: formatting, vet, then every test with the
# race detector. The live boundary suite in tests/ builds its own images
# and needs a Docker engine; under CI=true a missing engine fails it.
set -eu
cd "$(dirname "$0")/.."

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change: $unformatted" >&2
  exit 1
fi
go vet ./...
# Every package builds and vets for arm64 too, so nothing that only
# amd64 has (dup2, fork, pause) comes back unseen.
GOARCH=arm64 go vet ./...
GOARCH=arm64 go build ./...
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
# The Python, science, C, C++ and Java images' locks pin package versions
# that Debian's mirror may have replaced since: then the tests build from
# a refreshed copy of the lock, say so in one line, and still check that
# two builds give one ID.
if command -v apt-get >/dev/null 2>&1; then
  apt-cache show python3.11-minimal >/dev/null 2>&1 || { [ "$(id -u)" = 0 ] && apt-get update -qq >/dev/null 2>&1; } || true
  arch=$(dpkg --print-architecture)
  for kind in python science c cpp java; do
    lock=isolation/$kind.$arch.lock
    stale=""
    while read -r pkg version _; do
      [ -n "$pkg" ] || continue
      apt-get download --print-uris "$pkg=$version" >/dev/null 2>&1 || stale="$stale $pkg"
    done <"$lock"
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
go test -race -count=1 $(go list ./... | grep -v -e '/tests$' -e '/tests/arm64$')
if [ -d tests ] && [ -n "$(ls tests/*_test.go 2>/dev/null)" ]; then
  # The current gVisor, pinned in scripts/runsc.sh and built once into the
  # user's cache, which the second engine registers as runsc. Without it
  # the second-engine tests skip; under CI=true that is a failure, so stop
  # here rather than after the suite.
  if SYNAPSE_RUNSC=$(scripts/runsc.sh); then
    export SYNAPSE_RUNSC
  else
    echo "scripts/runsc.sh could not build the pinned runsc: the second-engine tests skip (and fail under CI=true)" >&2
    [ "${CI:-}" != true ] || exit 1
  fi
  # Verbose, so the log names every boundary test that ran and passed.
  go test -race -count=1 -v -timeout 30m ./tests/
  # arm64: the engine-free packages' tests compiled for arm64 and run under
  # qemu-user, then an arm64 engine under qemu-system-aarch64 (its cost:
  # scripts/arm64-check.sh).
  scripts/arm64-check.sh
fi
