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
# The suite's second engine registers gVisor's runsc, from Debian's packages.
if ! command -v runsc >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing runsc (Debian's gVisor) for the second-engine tests" >&2
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq runsc >/dev/null
  else
    echo "runsc is missing and cannot be installed here: the second-engine tests will skip (fail under CI=true)" >&2
  fi
fi
go test -race -count=1 $(go list ./... | grep -v '/tests$')
if [ -d tests ] && [ -n "$(ls tests/*_test.go 2>/dev/null)" ]; then
  # Verbose, so the log names every boundary test that ran and passed.
  go test -race -count=1 -v -timeout 30m ./tests/
fi
