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
# From Debian's packages: gVisor's runsc, which the suite's second engine
# registers; jq, which the README's batch Makefile recipe uses; zsh and
# fish, whose completion scripts the tests parse.
missing=""
for pkg in runsc jq zsh fish; do
  command -v "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing$missing from Debian's packages for the tests" >&2
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
  else
    echo "missing and not installable here:$missing (without runsc the second-engine tests skip, and fail under CI=true;" \
      "without jq the README's batch recipe is not run; without zsh or fish their completion scripts go unchecked)" >&2
  fi
fi
go test -race -count=1 $(go list ./... | grep -v '/tests$')
if [ -d tests ] && [ -n "$(ls tests/*_test.go 2>/dev/null)" ]; then
  # Verbose, so the log names every boundary test that ran and passed.
  go test -race -count=1 -v -timeout 30m ./tests/
fi
