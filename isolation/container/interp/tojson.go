package interp

import (
	"bytes"
	"encoding/json"
	"math"

	"go.starlark.net/starlark"
)

// maxDepth bounds nesting when converting a value; deeper (or cyclic)
// values fall back to their repr, which Starlark prints cycle-safely.
const maxDepth = 64

// ToJSON converts a Starlark value to a JSON value where one exists: ints
// of any size, finite floats, strings, bools, None, lists, tuples, and
// dicts with string keys, recursively. Otherwise it returns the value's
// repr as a JSON string and repr=true.
func ToJSON(v starlark.Value) (raw json.RawMessage, repr bool) {
	var buf bytes.Buffer
	if writeJSON(&buf, v, 0) {
		return buf.Bytes(), false
	}
	buf.Reset()
	writeString(&buf, v.String())
	return buf.Bytes(), true
}

// writeString writes s as a JSON string without HTML escaping, so "<" stays
// "<" for the humans and scripts that read results.
func writeString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)           // strings always encode
	buf.Truncate(buf.Len() - 1) // Encode appends a newline
}

func writeJSON(buf *bytes.Buffer, v starlark.Value, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch v := v.(type) {
	case starlark.NoneType:
		buf.WriteString("null")
	case starlark.Bool:
		if v {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
	case starlark.Int:
		buf.WriteString(v.String()) // exact decimal digits, any size
	case starlark.Float:
		f := float64(v)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return false
		}
		b, _ := json.Marshal(f)
		buf.Write(b)
	case starlark.String:
		writeString(buf, string(v))
	case *starlark.List, starlark.Tuple:
		seq := v.(starlark.Indexable)
		buf.WriteByte('[')
		for i := 0; i < seq.Len(); i++ {
			if i > 0 {
				buf.WriteByte(',')
			}
			if !writeJSON(buf, seq.Index(i), depth+1) {
				return false
			}
		}
		buf.WriteByte(']')
	case *starlark.Dict:
		buf.WriteByte('{')
		for i, kv := range v.Items() {
			k, ok := kv[0].(starlark.String)
			if !ok {
				return false
			}
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, string(k))
			buf.WriteByte(':')
			if !writeJSON(buf, kv[1], depth+1) {
				return false
			}
		}
		buf.WriteByte('}')
	default:
		return false
	}
	return true
}
