#!/bin/sh
# Builds the static runner and the reference image offline on the local
# engine, tags it synapse-runtime:local for humans, and prints only the
# immutable image ID (sha256:...) on stdout: pass that ID to --image.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
tag=${SYNAPSE_IMAGE_TAG:-synapse-runtime:local}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

# Static, path-free, build-id-free: the same source gives the same bytes.
CGO_ENABLED=0 go build -C "$root" -trimpath -buildvcs=false -ldflags='-s -w -buildid=' \
  -o "$work/runner" ./isolation/runner
cp "$root/isolation/Dockerfile" "$work/Dockerfile"
# COPY keeps file times in the layer; pin them so the layer is stable.
touch -d @0 "$work/runner" "$work/Dockerfile"

# SOURCE_DATE_EPOCH pins timestamps where the builder honours it (BuildKit).
# docker's stderr (a deprecation notice for the legacy builder) is shown
# only if the build fails.
if ! SOURCE_DATE_EPOCH=0 docker build --quiet --pull=false --tag "$tag" "$work" >/dev/null 2>"$work/build.err"; then
  cat "$work/build.err" >&2
  exit 1
fi
docker image inspect --format '{{.Id}}' "$tag"
