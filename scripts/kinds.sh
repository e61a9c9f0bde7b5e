# Sourced by the scripts that build or test images (sh has no imports):
# the registry of image kinds, isolation/container/images/kinds, a table whose
# first line that is not a comment names its columns.
#
#   $images                   the directory of the kinds' files: the
#                             caller's, if it set one, else found from $0
#   image_kinds [COL VALUE]   the kinds in the registry's order; with COL
#                             and VALUE, those whose COL is VALUE
#   image_field KIND COL      KIND's COL (tag, root, tier); fails, saying
#                             so on stderr, for a kind or column not there

# From $0, every script that sources this one being in scripts/; one
# that changed directory before sets $images itself.
images=${images:-$(cd "$(dirname "$0")/../isolation/container/images" && pwd)}

# image_table prints the rows as "KIND VALUE", VALUE being COL's (the
# kind's own name for an empty COL); it fails if there is no such column.
image_table() {
  awk -v col="${1:-kind}" '
    /^[ \t]*(#|$)/ { next }
    !n { for (n = 1; n <= NF && $n != col; n++) ; if (n > NF) exit 1; next }
    { print $1, $n }
  ' "$images/kinds"
}

image_kinds() {
  image_table "${1:-kind}" | awk -v want="${2:-}" 'want == "" || $2 == want { print $1 }'
}

image_field() {
  if ! value=$(image_table "$2" | awk -v kind="$1" '$1 == kind { print $2; found = 1 } END { exit !found }'); then
    echo "no $2 of an image kind \"$1\" in isolation/container/images/kinds (kinds: $(image_kinds | paste -sd ' ' -))" >&2
    return 1
  fi
  echo "$value"
}
