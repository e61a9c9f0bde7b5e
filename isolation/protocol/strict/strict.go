// Package strict is the one decoding rule of every frame read from the
// wire: the hello, the request, a batch line, the response. The runner's
// request decoder and the host's decoders share it, so a frame one side
// refuses the other refuses too.
package strict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Decode is the one decoding rule of every frame read from the wire (the
// hello, the request, a batch line, the response): valid UTF-8;
// one JSON object, nothing after it; in every object at every depth no
// key twice and, where the Go type is a struct, no key but its fields'
// exact JSON names. encoding/json alone keeps the last of a duplicate key
// silently ({"ok":false,"ok":true} would be ok) and matches names without
// regard to case, so once the frame decoded into v (a pointer) its keys
// are walked (keys) by v's type.
func Decode(b []byte, v any) error {
	if err := CheckUTF8(b); err != nil {
		// encoding/json would silently replace invalid bytes with U+FFFD.
		return err
	}
	t := reflect.TypeOf(v).Elem()
	trimmed := bytes.TrimLeft(b, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return fmt.Errorf("want a JSON object%s", shapeOf(t).want(" with %s"))
	}
	// Decoded first, for its syntax and types (a frame refused later is
	// dropped whole): the walk then reads JSON known to be valid.
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	w := keys{b: trimmed}
	return w.value(t)
}

// keys walks the keys of one JSON value whose syntax encoding/json has
// checked (its nesting bounded too), by its Go type; at names the object
// or array it is in, for messages.
type keys struct {
	b  []byte
	i  int
	at []step
}

// step is one level of the walk's place: an object's key or an array's
// index.
type step struct {
	key   string
	index int // -1 for a key
}

// value walks the value at w.i, of type t.
func (w *keys) value(t reflect.Type) error {
	w.space()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch w.b[w.i] {
	case '{':
		return w.object(t)
	case '[':
		return w.array(t)
	case '"':
		w.str()
	default: // a number, true, false or null
		for w.i < len(w.b) && !strings.ContainsRune(",]} \t\r\n", rune(w.b[w.i])) {
			w.i++
		}
	}
	return nil
}

func (w *keys) object(t reflect.Type) error {
	s := shapeOf(t)
	var seen map[string]bool
	w.i++ // the '{'
	for {
		w.space()
		switch w.b[w.i] {
		case '}':
			w.i++
			return nil
		case ',':
			w.i++
			w.space()
		}
		key := w.str()
		if seen[key] {
			return fmt.Errorf("duplicate field %q%s", key, w.in())
		}
		if seen == nil {
			seen = make(map[string]bool, len(s.names))
		}
		seen[key] = true
		ft, ok := s.field(key)
		if !ok {
			return fmt.Errorf("unknown field %q%s%s", key, w.in(), s.want(" (want %s only)"))
		}
		w.space()
		w.i++ // the ':'
		w.at = append(w.at, step{key: key, index: -1})
		if err := w.value(ft); err != nil {
			return err
		}
		w.at = w.at[:len(w.at)-1]
	}
}

func (w *keys) array(t reflect.Type) error {
	elem := anyType
	if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		elem = t.Elem()
	}
	w.i++ // the '['
	for n := 0; ; n++ {
		w.space()
		switch w.b[w.i] {
		case ']':
			w.i++
			return nil
		case ',':
			w.i++
		}
		w.at = append(w.at, step{index: n})
		if err := w.value(elem); err != nil {
			return err
		}
		w.at = w.at[:len(w.at)-1]
	}
}

// str reads the string at w.i, its escapes undone.
func (w *keys) str() string {
	start, escaped := w.i, false
	for w.i++; w.b[w.i] != '"'; w.i++ {
		if w.b[w.i] == '\\' {
			escaped = true
			w.i++
		}
	}
	w.i++
	if !escaped {
		return string(w.b[start+1 : w.i-1])
	}
	var s string
	_ = json.Unmarshal(w.b[start:w.i], &s) // valid: its syntax was checked
	return s
}

func (w *keys) space() {
	for w.i < len(w.b) && (w.b[w.i] == ' ' || w.b[w.i] == '\t' || w.b[w.i] == '\r' || w.b[w.i] == '\n') {
		w.i++
	}
}

// in names where the walk is: "" at the top, else ` in "selfcheck"` or
// ` in "result[0]"`.
func (w *keys) in() string {
	if len(w.at) == 0 {
		return ""
	}
	var p strings.Builder
	for _, s := range w.at {
		if s.index >= 0 {
			p.WriteString("[" + strconv.Itoa(s.index) + "]")
			continue
		}
		if p.Len() > 0 {
			p.WriteByte('.')
		}
		p.WriteString(s.key)
	}
	return fmt.Sprintf(" in %q", p.String())
}

var anyType = reflect.TypeFor[any]()

// shape is what the walk knows of an object's Go type: a struct's field
// names (in order, for messages) and types; for anything else (a map, a
// json.RawMessage, a value of any type) every key is allowed once and
// each value has the type elem.
type shape struct {
	names []string
	types map[string]reflect.Type
	elem  reflect.Type
}

// shapes caches each type's shape: a frame is decoded many times, its
// types are few.
var shapes sync.Map // reflect.Type -> shape

func shapeOf(t reflect.Type) shape {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s, ok := shapes.Load(t); ok {
		return s.(shape)
	}
	s := newShape(t)
	shapes.Store(t, s)
	return s
}

func newShape(t reflect.Type) shape {
	switch t.Kind() {
	case reflect.Struct:
		s := shape{types: map[string]reflect.Type{}}
		s.add(t)
		return s
	case reflect.Map:
		return shape{elem: t.Elem()}
	}
	return shape{elem: anyType}
}

// add adds struct t's fields to s, an embedded struct's untagged fields
// as its own, as encoding/json flattens them.
func (s *shape) add(t reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			s.add(f.Type)
			continue
		}
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		s.names = append(s.names, name)
		s.types[name] = f.Type
	}
}

// listedFields is how many fields an object may have for its messages to
// list them: a request frame's (twelve), a batch line's, the hello's, an
// error's, an exit's, a usage's; the dozens of a response or a selfcheck
// would bury the key a message names.
const listedFields = 12

// want formats the object's field names into format, or is "" when they
// are not listed.
func (s shape) want(format string) string {
	if len(s.names) == 0 || len(s.names) > listedFields {
		return ""
	}
	return fmt.Sprintf(format, quoteAll(s.names))
}

// field is the type of key's value, and whether key may appear.
func (s shape) field(key string) (reflect.Type, bool) {
	if s.types == nil {
		return s.elem, true
	}
	t, ok := s.types[key]
	return t, ok
}

// quoteAll lists names for a message: "a", "b" and "c".
func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) <= 2 {
		return strings.Join(q, " and ")
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// CheckUTF8 names the byte offset of the first invalid UTF-8 sequence.
func CheckUTF8[T string | []byte](b T) error {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRuneInString(string(b[i:min(i+utf8.UTFMax, len(b))]))
		if r == utf8.RuneError && n <= 1 {
			return fmt.Errorf("invalid UTF-8 at offset %d", i)
		}
		i += n
	}
	return nil
}
