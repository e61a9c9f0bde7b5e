package limits

import "strings"

// ImageIDPrefix starts every image reference the tool accepts.
const ImageIDPrefix = "sha256:"

// ValidateImageID accepts only an immutable local image ID: "sha256:" and 64
// lowercase hex digits. Tags and names can be re-pointed after review and
// short IDs can become ambiguous, so both are refused.
func ValidateImageID(s string) error {
	bad := func(msg string) error { return &FlagError{Flag: "--image", Value: s, Msg: msg} }
	if s == "" {
		return &FlagError{Flag: "--image", Msg: "is required: an image ID like sha256:<64 hex digits> (scripts/build-image.sh prints one)"}
	}
	hex, ok := strings.CutPrefix(s, ImageIDPrefix)
	if !ok {
		return bad("must be an immutable image ID sha256:<64 lowercase hex digits>, not a name or tag")
	}
	if len(hex) != 64 {
		return bad("must have exactly 64 hex digits after sha256:")
	}
	for i := 0; i < len(hex); i++ {
		if c := hex[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return bad("must be lowercase hex after sha256:")
		}
	}
	return nil
}
