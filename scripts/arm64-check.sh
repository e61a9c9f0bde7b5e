#!/bin/sh
# The arm64 check, run by scripts/test.sh after the live suite, on an
# amd64 machine with no arm64 hardware:
#
#  1. the packages that need neither an engine nor to start themselves
#     again (the policy and its seccomp compiler, the argv and its audit,
#     the protocol, Starlark, the judge's matcher, the wire) have their
#     tests compiled for arm64 and run under qemu-user (debian-apt.sh);
#  2. an arm64 Debian 12 host boots under qemu-system-aarch64
#     (scripts/arm64-vm.sh: Debian's arm64 kernel, cgroup v2, Docker from
#     Debian's packages), the reference and Python images are built for
#     it with build-image.sh --arch arm64, and tests/arm64 runs the tool
#     against it: 1+2, Python, the syscall filter by aarch64's numbers,
#     oom, timeout, cpu_timeout.
#
# Everything there is emulated instruction by instruction, so a container
# takes seconds to start; the cost is printed at the end.
#
# Usage: scripts/arm64-check.sh [--unit-only]
set -eu
cd "$(dirname "$0")/.."
began=$(date +%s)
. scripts/debian-apt.sh
debian_arch arm64
tmp=$(mktemp -d)
state=${SYNAPSE_ARM64_VM:-${SYNAPSE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/synapse-isolation}/arm64-vm}
cleanup() {
  [ ! -e "$state/qemu.pid" ] || scripts/arm64-vm.sh stop "$state" >&2 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

for pkg in limits limits/seccomp dockerargs isolation/protocol isolation/container/interp isolation/container/runner/judge \
  isolation/cli/internal/batchline isolation/protocol/strict isolation/protocol/capture isolation/internal/environ; do
  GOARCH=arm64 go test -c -o "$tmp/test" "./$pkg"
  # shellcheck disable=SC2086 # empty on an arm64 machine: run natively
  if ! (cd "$pkg" && $run_prefix "$tmp/test" -test.count=1 >"$tmp/log" 2>&1); then
    cat "$tmp/log" >&2
    echo "arm64-check: $pkg's tests fail on arm64 (under qemu-user)" >&2
    exit 1
  fi
  echo "arm64-check: $pkg: ok on arm64 (qemu-user)" >&2
done
unit=$(date +%s)
[ "${1:-}" != --unit-only ] || exit 0

host=$(scripts/arm64-vm.sh start "$state")
booted=$(date +%s)
echo "arm64-check: the arm64 engine at $host answered after $((booted - unit)) s" >&2
SYNAPSE_ARM64_DOCKER_HOST=$host go test -count=1 -v -timeout 45m ./tests/arm64/
echo "arm64-check: unit tests $((unit - began)) s, boot $((booted - unit)) s, live check $(($(date +%s) - booted)) s" >&2
