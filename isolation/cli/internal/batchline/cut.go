package batchline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/strict"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// cutLine reads what a reader kept of a batch line longer than the line
// bound, a prefix of it, token by token: the part of the request the cut
// falls in, as a message names it (`"source"`, `"stdin"`, `file "NAME"`,
// `"files"`; "" when it falls
// between parts or the line is no request object), so the refusal names
// what made the line too long, as run's refusal of --stdin or --from-file
// does; and the line's id when it came whole before the cut, so the
// refusal carries it as a decoded line's does. A key seen twice gives no
// id: the line's decoder refuses such a line as a whole.
func cutLine(prefix []byte) (id json.RawMessage, part string) {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, ""
	}
	seen := map[string]bool{}
	for {
		t, err := dec.Token()
		key, ok := t.(string)
		if err != nil || !ok { // cut in a key, or the object ended before the cut
			return id, ""
		}
		if seen[key] {
			return nil, ""
		}
		seen[key] = true
		at := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			switch key {
			case "source", "stdin":
				return id, strconv.Quote(key)
			case "files":
				return id, cutFiles(prefix[at:])
			}
			return id, ""
		}
		if key == "id" && validID(raw) && strict.CheckUTF8([]byte(raw)) == nil {
			id = raw
		}
	}
}

// cutFiles names the file whose content the cut falls in, from the
// "files" value on (after its key); `"files"` when the cut is elsewhere
// in it or the name breaks a file name's rules.
func cutFiles(rest []byte) string {
	rest = bytes.TrimLeft(rest, " \t\r\n")
	rest, _ = bytes.CutPrefix(rest, []byte(":"))
	dec := json.NewDecoder(bytes.NewReader(rest))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return `"files"`
	}
	for {
		t, err := dec.Token()
		name, ok := t.(string)
		if err != nil || !ok || protocol.CheckName(name) != nil {
			return `"files"`
		}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return fmt.Sprintf("file %q", name)
		}
	}
}

// lineTooLarge is the refusal of a batch line longer than
// limits.MaxLineBytes, cut there in part (cutLine): a request over the
// limit (errors.Is protocol.ErrTooLarge), of a size not known, only where
// the cut fell.
type lineTooLarge struct {
	part string
}

func (e *lineTooLarge) Is(target error) bool { return target == protocol.ErrTooLarge }

func (e *lineTooLarge) Error() string {
	in := ""
	if p := linePart(e.part); p != "" {
		in = " (cut in " + p + ")"
	}
	return fmt.Sprintf("request: the line is more than %d bytes%s, over the limit of %d", limits.MaxLineBytes, in, limits.MaxRequestBytes)
}

// linePart names a part of a batch line as run's messages name it: the
// program, stdin, file "NAME", the files.
func linePart(field string) string {
	switch field {
	case `"source"`:
		return "the program"
	case `"stdin"`:
		return "stdin"
	case `"files"`:
		return "the files"
	}
	return field
}

// validID is an id a result may carry: a string, a number or null.
func validID(id json.RawMessage) bool {
	return len(id) == 0 || id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9') || string(id) == "null"
}
