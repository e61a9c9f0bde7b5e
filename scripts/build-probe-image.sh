#!/bin/sh
# Builds the probe image of the boundary suite (the runner plus a static
# probe that really tries each boundary, and allocates for the OOM cases)
# and prints its ID. Usage: scripts/build-probe-image.sh
set -eu
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
CGO_ENABLED=0 go build -trimpath -o "$work/runner" ./isolation/container/runner
CGO_ENABLED=0 go build -trimpath -o "$work/probe" ./tests/probe
cp tests/testdata/probe.Dockerfile "$work/Dockerfile"
docker build -q "$work" 2>/dev/null
