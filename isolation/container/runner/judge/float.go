package judge

import (
	"bytes"
	"math"
	"strconv"
)

// maxNumberToken bounds an output token compared with an expected number:
// a number's digits past it are no answer any checker would accept, and
// the token need not be held to say so.
const maxNumberToken = 1 << 10

// Float compares output with an expected output token by token: a token
// is a run of bytes without whitespace, and lines are as in Lines mode
// (each line's tokens in order, the empty lines at the end of either side
// ignored, the inner ones counted), though how much whitespace separates
// two tokens of a line does not count. Where the expected token is a
// number, the output's must be a number within Abs of it or within Rel
// times its magnitude; NaN matches only NaN and an infinity only itself.
// Two integers ([+-] digits) must be equal, digit for digit: no epsilon
// makes a count right. Other numbers compare as the float64 each rounds
// to, so decimals that differ only past float64's 15 to 17 significant
// digits are one value.
// Any other expected token must be matched byte for byte. A number is
// decimal: [+-] digits [. digits] [e [+-] digits], or nan, inf or
// infinity in any case.
//
// Like Matcher it is an io.Writer that holds none of the output but the
// token being read (at most maxNumberToken bytes, or the expected token's
// length), and Line says where the first difference is: the output line
// of the first token or line that differs, or for output that ends early
// the line after its last line that is not ignored.
type Float struct {
	abs, rel float64
	exp      []byte
	pos      int // in exp: where the current line's next token is looked for
	last     int // in exp: its last byte that is not whitespace, -1 if none

	bad  bool
	line int64 // the current output line, 1-based; once bad, the difference's

	tokens int    // tokens of the current output line so far
	blanks int64  // blank output lines since the last one with a token
	want   []byte // the expected token the one being read must match
	limit  int    // the most of the output token held: past it, no match
	tok    []byte // the output token being read, while it may still match
	inTok  bool
}

// NewFloat returns a Float of output against expect, within abs or rel.
// It keeps expect: expect must not be modified while the Float is in use.
func NewFloat(expect []byte, abs, rel float64) *Float {
	last := len(bytes.TrimRight(expect, " \t\r\v\f\n")) - 1
	return &Float{abs: abs, rel: rel, exp: expect, last: last, line: 1}
}

// Write compares p, the output's next bytes; it never fails.
func (f *Float) Write(p []byte) (int, error) {
	for _, b := range p {
		if f.bad {
			break
		}
		switch {
		case b == '\n':
			f.endToken()
			f.endLine()
		case isSpace(b):
			f.endToken()
		default:
			f.byte(b)
		}
	}
	return len(p), nil
}

// byte reads one byte of a token: its first finds the expected token
// it must match.
func (f *Float) byte(b byte) {
	if !f.inTok {
		if !f.startToken() {
			return
		}
		f.inTok, f.tok = true, f.tok[:0]
	}
	if len(f.tok) >= f.limit {
		f.fail(f.line)
		return
	}
	f.tok = append(f.tok, b)
}

// startToken finds the expected token the output's next token must match:
// first, for a line's first token, as many blank expected lines as blank
// output lines came before it; then the current expected line's next
// token. It fails the match where there is none.
func (f *Float) startToken() bool {
	if f.tokens == 0 {
		for ; f.blanks > 0; f.blanks-- {
			if !f.blankLine() {
				f.fail(f.line - f.blanks) // the first blank line the expected lacks
				return false
			}
		}
	}
	f.want = f.nextWant()
	if f.want == nil {
		f.fail(f.line)
		return false
	}
	f.limit = len(f.want)
	if numberSyntax(f.want) {
		f.limit = max(f.limit, maxNumberToken)
	}
	return true
}

// blankLine skips one expected line that has only whitespace, if the
// next one is and a line with a token follows it: a blank line at the end
// is ignored, so no output line is matched with it.
func (f *Float) blankLine() bool {
	i := f.pos
	if i >= f.last {
		return false
	}
	for i < len(f.exp) && isSpace(f.exp[i]) {
		i++
	}
	if i >= len(f.exp) || f.exp[i] != '\n' {
		return false
	}
	f.pos = i + 1
	return true
}

// nextWant is the current expected line's next token, nil at its end.
func (f *Float) nextWant() []byte {
	i := f.pos
	for i < len(f.exp) && isSpace(f.exp[i]) {
		i++
	}
	j := i
	for j < len(f.exp) && f.exp[j] != '\n' && !isSpace(f.exp[j]) {
		j++
	}
	f.pos = j
	if i == j {
		return nil
	}
	return f.exp[i:j]
}

// endToken compares the token just read with the one it was matched to.
func (f *Float) endToken() {
	if !f.inTok || f.bad {
		return
	}
	f.inTok = false
	f.tokens++
	if !f.same(f.tok, f.want) {
		f.fail(f.line)
	}
}

// endLine ends an output line: one with tokens must have ended the
// expected line too; a blank one is counted, to be matched or ignored by
// what follows.
func (f *Float) endLine() {
	if f.bad {
		return
	}
	if f.tokens == 0 {
		f.blanks++
	} else {
		if f.nextWant() != nil {
			f.fail(f.line)
			return
		}
		if f.pos < len(f.exp) {
			f.pos++ // the expected line's '\n'
		} else {
			f.pos = len(f.exp) + 1 // past the end: no expected line is left
		}
	}
	f.tokens = 0
	f.line++
}

// same says whether out matches want: two integers by their exact
// values, within the epsilons where want is another number, byte for byte
// otherwise.
func (f *Float) same(out, want []byte) bool {
	w, isNum := number(want)
	if !isNum {
		return bytes.Equal(out, want)
	}
	if isInteger(want) && isInteger(out) {
		// A count or an id is exact: as float64s, 9007199254740993 and
		// 9007199254740992 are one value, and every integer of 17 digits
		// or more shares its value with its neighbours.
		return sameInteger(out, want)
	}
	o, ok := number(out)
	switch {
	case !ok:
		return false
	case math.IsNaN(w) || math.IsInf(w, 0):
		return math.IsNaN(w) && math.IsNaN(o) || w == o
	case math.IsNaN(o) || math.IsInf(o, 0):
		return false
	}
	d := math.Abs(o - w)
	return d <= f.abs || d <= f.rel*math.Abs(w)
}

func (f *Float) fail(line int64) { f.bad, f.line = true, line }

// Match reports whether the whole output written matches the expected
// output. Call it once the output is complete.
func (f *Float) Match() bool { return f.Line() == 0 }

// Line is the 1-based output line of the first difference, 0 if the
// output matches. Call it once the output is complete.
func (f *Float) Line() int64 {
	if f.bad {
		return f.line
	}
	if f.inTok || f.tokens > 0 {
		f.endToken()
		f.endLine()
		if f.bad {
			return f.line
		}
	}
	if f.pos <= len(f.exp) && len(bytes.TrimLeft(f.exp[f.pos:], " \t\r\v\f\n")) > 0 {
		// The output ended early: the first missing line is the one after
		// its last line that is not ignored.
		f.fail(f.line - f.blanks)
		return f.line
	}
	f.pos = len(f.exp) + 1 // settled: asking again answers the same
	return 0
}

// isInteger says whether tok is spelt [+-] digits.
func isInteger(tok []byte) bool {
	if len(tok) > 0 && (tok[0] == '+' || tok[0] == '-') {
		tok = tok[1:]
	}
	if len(tok) == 0 {
		return false
	}
	for _, b := range tok {
		if b < '0' || b > '9' {
			return false
		}
	}
	return true
}

// sameInteger says whether two integer tokens have one value: their signs
// and digits compared without leading zeros, a zero whatever its sign.
// The tokens are at most maxNumberToken bytes, so no number is built.
func sameInteger(a, b []byte) bool {
	signA, digitsA := integerParts(a)
	signB, digitsB := integerParts(b)
	return bytes.Equal(digitsA, digitsB) && (signA == signB || len(digitsA) == 0)
}

// integerParts splits an integer token into whether it is negative and
// its digits without leading zeros (none for a zero).
func integerParts(tok []byte) (negative bool, digits []byte) {
	if tok[0] == '+' || tok[0] == '-' {
		negative, tok = tok[0] == '-', tok[1:]
	}
	return negative, bytes.TrimLeft(tok, "0")
}

// number reads a decimal number token: [+-] digits [. digits] [e [+-]
// digits] (digits on at least one side of the point), or nan, inf or
// infinity in any case; ok is false for any other token. A number past
// float64's range is an infinity, as it is to strconv.
func number(tok []byte) (v float64, ok bool) {
	if !numberSyntax(tok) {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(tok), 64)
	if err != nil && !isRange(err) {
		return 0, false
	}
	return v, true
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// numberSyntax says whether tok is spelt as a decimal number.
func numberSyntax(tok []byte) bool {
	s := tok
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if bytes.EqualFold(s, []byte("nan")) || bytes.EqualFold(s, []byte("inf")) || bytes.EqualFold(s, []byte("infinity")) {
		return true
	}
	digits := func() int {
		n := 0
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		s = s[n:]
		return n
	}
	n := digits()
	if len(s) > 0 && s[0] == '.' {
		s = s[1:]
		n += digits()
	}
	if n == 0 {
		return false
	}
	if len(s) > 0 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
			s = s[1:]
		}
		if digits() == 0 {
			return false
		}
	}
	return len(s) == 0
}
