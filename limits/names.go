package limits

import "strings"

// ImageIDPrefix starts every image reference the tool accepts.
const ImageIDPrefix = "sha256:"

// CheckImageID accepts only an immutable local image ID: "sha256:" and 64
// lowercase hex digits. Tags and names can be re-pointed after review and
// short IDs can become ambiguous, so both are refused.
func CheckImageID(s string) error {
	bad := func(msg string) error { return &FieldError{Field: "image", Value: s, Msg: msg} }
	if s == "" {
		return &FieldError{Field: "image", Msg: "is required: an image ID like sha256:<64 hex digits> (scripts/build-image.sh prints one)"}
	}
	hex, ok := strings.CutPrefix(s, ImageIDPrefix)
	// A short ID (docker images prints 12 digits) names an image only
	// while no other ID starts the same way.
	digits := hex != "" && strings.Trim(hex, "0123456789abcdef") == ""
	switch {
	case digits && len(hex) < 64 && (ok || len(hex) >= 12):
		return bad("is a short image ID: the full ID, sha256: and 64 lowercase hex digits, is needed")
	case digits && len(hex) == 64 && !ok:
		return bad("must start with sha256:")
	case !ok:
		return bad("must be an immutable image ID sha256:<64 lowercase hex digits>, not a name or tag: " +
			"docker image inspect --format '{{.Id}}' NAME prints a local image's ID (scripts/build-image.sh prints the one it built)")
	}
	if len(hex) != 64 {
		return bad("must have exactly 64 hex digits after sha256:")
	}
	if !digits {
		return bad("must be lowercase hex after sha256:")
	}
	return nil
}

// CheckName applies docker's container name grammar, at least two
// characters of [a-zA-Z0-9][a-zA-Z0-9_.-]+, to a name, context or runtime:
// a value docker would refuse is refused before anything starts, and none
// can reach the CLI as something it parses differently (a flag, say).
func CheckName(field, n string) error {
	if n == "" {
		return &FieldError{Field: field, Msg: "must not be empty"}
	}
	ok := len(n) >= 2
	for i := 0; i < len(n) && ok; i++ {
		c := n[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		ok = alnum || i > 0 && (c == '_' || c == '.' || c == '-')
	}
	if !ok {
		return &FieldError{Field: field, Value: n, Msg: "must match [a-zA-Z0-9][a-zA-Z0-9_.-]+"}
	}
	return nil
}
