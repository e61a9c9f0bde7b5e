# Sourced by build-image.sh (sh has no imports): an operator's own
# packages, --with PKG,... (Debian's, pinned in the operator's --lock
# FILE), --wheels DIR --requirements FILE (Python wheels pinned by hash)
# with --startup-hooks, and --preload MOD,... It reads build-image.sh's
# variables: kind, prep, arch, base, lock, project (the kind's own lock),
# update, with, wheels, reqs, hooks (true or false), preload, work, root,
# images.
#
#   operator_check    refuses, before anything is made, what cannot be
#                     built: exits 2 for a wrong use, 1 for a lock that
#                     lacks a package asked for
#   operator_prepare  writes the operator's lock (--with --update-lock,
#                     by debian-lock.sh) and checks the wheels against
#                     the requirements (scripts/wheelhouse check): every
#                     refusal names its package or line, and nothing is
#                     built; the chosen wheels go to $work/wheels.chosen
#   operator_labels   prints the Dockerfile's LABEL lines that record the
#                     lock's and the requirements' SHA-256, --startup-hooks
#                     and the preload

operator_check() {
  if [ -n "$with" ]; then
    if [ "$prep" = none ] || [ -n "$base" ]; then
      echo "build-image: --with: the $kind image${base:+ on --base} has no Debian packages to add to" >&2
      exit 2
    fi
    if [ "$lock" = "$project" ]; then
      echo "build-image: --with needs --lock FILE, a lock of your own: ${project#"$root"/} is the $kind image's, and stays as it is" >&2
      exit 2
    fi
    if ! $update; then
      for pkg in $(echo "$with" | tr ',' ' '); do
        if [ ! -f "$lock" ] || ! awk -v p="$pkg" '$1 == p { found = 1 } END { exit !found }' "$lock"; then
          echo "build-image: --with $pkg: $lock does not pin it; resolve and pin it with --update-lock" >&2
          exit 1
        fi
      done
    fi
  fi
  if [ -n "$wheels$reqs" ]; then
    if [ -z "$wheels" ] || [ -z "$reqs" ]; then
      echo "build-image: --wheels DIR and --requirements FILE go together" >&2
      exit 2
    fi
    case $prep in
      python|science) ;;
      *) echo "build-image: --wheels: for a Python image (python, science), not $kind" >&2; exit 2 ;;
    esac
    if [ -n "$base" ]; then
      echo "build-image: --wheels: not on --base, whose Python is not Debian's" >&2
      exit 2
    fi
    [ -d "$wheels" ] || { echo "build-image: --wheels $wheels: not a directory" >&2; exit 2; }
    [ -f "$reqs" ] || { echo "build-image: --requirements $reqs: no such file" >&2; exit 2; }
  elif $hooks; then
    echo "build-image: --startup-hooks goes with --wheels DIR --requirements FILE: it lets their wheels install what Python runs at every start" >&2
    exit 2
  fi
  if [ -n "$preload" ]; then
    case $prep in
      python|science) ;;
      *) echo "build-image: --preload: for a Python image (python, science), not $kind" >&2; exit 2 ;;
    esac
    if [ -n "$base" ]; then
      echo "build-image: --preload: not on --base, whose modules are not found at build time" >&2
      exit 2
    fi
    # runargs.CheckPreload's rule: 1 to 16 dotted names of identifiers.
    n=0
    for m in $(echo "$preload" | tr ',' ' '); do
      n=$((n + 1))
      if ! echo "$m" | grep -Eqx '[A-Za-z_][A-Za-z0-9_]{0,63}(\.[A-Za-z_][A-Za-z0-9_]{0,63}){0,7}'; then
        echo "build-image: --preload: \"$m\" is not a Python module name" >&2
        exit 2
      fi
    done
    if [ "$n" -eq 0 ] || [ "$n" -gt 16 ]; then
      echo "build-image: --preload: 1 to 16 modules, not $n" >&2
      exit 2
    fi
  fi
}

operator_prepare() {
  if [ -n "$wheels" ]; then
    CGO_ENABLED=0 go build -C "$root" -trimpath -buildvcs=false -o "$work/wheelhouse" ./scripts/wheelhouse
    # The image's Python, from its lock: python3.N-minimal.
    python=$(awk '$1 ~ /^python3\.[0-9]+-minimal$/ { sub(/^python/, "", $1); sub(/-minimal$/, "", $1); print $1 }' "$lock")
    step "checking the wheels of $wheels against $reqs (Python $python, $arch)"
    # shellcheck disable=SC2046 # --startup-hooks or nothing
    if ! "$work/wheelhouse" check --wheels "$wheels" --requirements "$reqs" --python "$python" --arch "$arch" \
      $($hooks && echo --startup-hooks) >"$work/wheels.chosen"; then
      echo "build-image: nothing was built" >&2
      exit 1
    fi
  fi
  if [ -n "$with" ] && $update; then
    if ! "$root/scripts/debian-lock.sh" "$kind" --arch "$arch" --lock "$lock" --with "$with" --from "$project"; then
      echo "build-image: nothing was built" >&2
      exit 1
    fi
  fi
}

operator_labels() {
  if [ -n "$lock" ] && [ "$lock" != "$project" ]; then
    printf 'LABEL io.synapse-isolation.debian-lock="sha256:%s"\n' "$(sha256sum "$lock" | cut -d' ' -f1)"
  fi
  if [ -n "$wheels" ]; then
    printf 'LABEL io.synapse-isolation.requirements="sha256:%s"\n' "$(sha256sum "$reqs" | cut -d' ' -f1)"
  fi
  if $hooks; then
    # The wheels' *.pth, sitecustomize and usercustomize run at every
    # start of the image's Python, before the program.
    printf 'LABEL io.synapse-isolation.startup-hooks="true"\n'
  fi
  if [ -n "$preload" ]; then
    # A JSON array, its quotes escaped as the kinds' Dockerfiles write it.
    printf 'LABEL io.synapse-isolation.preload="[%s]"\n' "$(echo "$preload" | tr ',' '\n' | sed 's/.*/\\"&\\"/' | paste -sd, -)"
  fi
}
