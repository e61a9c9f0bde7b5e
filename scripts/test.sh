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
go test -race -count=1 $(go list ./... | grep -v '/tests$')
if [ -d tests ] && [ -n "$(ls tests/*_test.go 2>/dev/null)" ]; then
  # Verbose, so the log names every boundary test that ran and passed.
  go test -race -count=1 -v -timeout 30m ./tests/
fi
