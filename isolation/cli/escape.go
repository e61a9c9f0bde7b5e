package cli

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Every line written for a person may carry text a program or an input
// chose (a file name, an id, an error message, what a program printed):
// a terminal would act on its control sequences (CSI and OSC, in C0's
// ESC form or as the C1 bytes U+009B and U+009D), and the bidirectional
// controls reorder what a person reads. Such text goes through
// escapeControl or oneLine; JSON output is exact and needs neither.

// oneLine keeps a diagnostic on one line, control characters escaped.
func oneLine(s string) string {
	return strings.ReplaceAll(escapeControl(s), "\n", `\n`)
}

// escapeControl escapes every control character except newline and tab
// (C0, DEL, C1), the Unicode bidirectional controls and line separators
// that can disguise text, and each byte that is not UTF-8 (as \xNN: a
// terminal given a lone byte may take it as the start of a sequence).
// It is idempotent: its output has nothing left to escape.
func escapeControl(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		case disguises(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// needsEscape reports whether escapeControl would change s.
func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || (r < 0x20 && r != '\n' && r != '\t') ||
			(r >= 0x7f && r < 0xa0) || disguises(r) {
			return true
		}
		i += size
	}
	return false
}

// disguises reports the runes that change how the text around them is
// shown without showing themselves: the bidirectional embeddings,
// overrides and isolates (U+202A-U+202E, U+2066-U+2069), the marks
// (U+200E, U+200F, U+061C), the byte order mark, and the line and
// paragraph separators (U+2028, U+2029), which some terminals break on.
func disguises(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200e, r == 0x200f, r == 0x061c, r == 0xfeff, r == 0x2028, r == 0x2029:
		return true
	}
	return false
}
