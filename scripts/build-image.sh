#!/bin/sh
# Builds the static runner and the reference image offline on the local
# engine, tags it synapse-runtime:local for humans, and prints only the
# immutable image ID (sha256:...) on stdout: pass that ID to --image.
# The same source gives the same ID on any engine that loads docker-save
# archives: see scripts/reproducible.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
tag=${SYNAPSE_IMAGE_TAG:-synapse-runtime:local}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

# Static, path-free, build-id-free: the same source gives the same bytes.
CGO_ENABLED=0 go build -C "$root" -trimpath -buildvcs=false -ldflags='-s -w -buildid=' \
  -o "$work/runner" ./isolation/runner
go build -C "$root" -o "$work/reproducible" ./scripts/reproducible
mkdir "$work/context"
cp "$root/isolation/Dockerfile" "$work/runner" "$work/context/"
# COPY keeps file times in the layer; pin them so the layer is stable.
touch -d @0 "$work/context/runner" "$work/context/Dockerfile"

# docker's stderr (a deprecation notice for the legacy builder) is shown
# only if the build fails.
if ! built=$(SOURCE_DATE_EPOCH=0 docker build --quiet --pull=false "$work/context" 2>"$work/build.err"); then
  cat "$work/build.err" >&2
  exit 1
fi
# The builder stamps build times and its build container into the image
# config; rewrite those so the ID depends only on the content.
docker save "$built" | "$work/reproducible" "$tag" | docker load --quiet >/dev/null
id=$(docker image inspect --format '{{.Id}}' "$tag")
if [ "$id" != "$built" ]; then
  docker rmi "$built" >/dev/null 2>&1 || true
fi
echo "$id"
