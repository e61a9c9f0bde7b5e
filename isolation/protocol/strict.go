package protocol

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

// decodeStrict is the one decoding rule of every frame read from the
// wire (the hello, the request, a batch line, the response): valid UTF-8;
// one JSON object, nothing after it; in every object at every depth no
// key twice and, where the Go type is a struct, no key but its fields'
// exact JSON names. encoding/json alone keeps the last of a duplicate key
// silently ({"ok":false,"ok":true} would be ok) and matches names without
// regard to case, so the frame is walked token by token first and
// decoded into v (a pointer) only once it passed.
func decodeStrict(b []byte, v any) error {
	if err := checkUTF8(b); err != nil {
		// encoding/json would silently replace invalid bytes with U+FFFD.
		return err
	}
	t := reflect.TypeOf(v).Elem()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // a number is not parsed here: an int of any size stays valid
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("want a JSON object%s", shapeOf(t).want(" with %s"))
	}
	if err := walkObject(dec, t, "", 1); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return json.Unmarshal(b, v)
}

// maxDepth is encoding/json's own bound of nesting, kept by the walk.
const maxDepth = 10000

// walkObject consumes the rest of an object (after its '{') whose Go type
// is t; path names it in messages ("" at the top).
func walkObject(dec *json.Decoder, t reflect.Type, path string, depth int) error {
	if depth > maxDepth {
		return errors.New("exceeded max depth")
	}
	s := shapeOf(t)
	seen := make(map[string]bool, len(s.names))
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return syntaxError(err)
		}
		key := tok.(string) // the decoder returns a string or an error here
		if seen[key] {
			return fmt.Errorf("duplicate field %q%s", key, in(path))
		}
		seen[key] = true
		ft, ok := s.field(key)
		if !ok {
			return fmt.Errorf("unknown field %q%s%s", key, in(path), s.want(" (want %s only)"))
		}
		if err := walkValue(dec, ft, joinPath(path, key), depth); err != nil {
			return err
		}
	}
	_, err := dec.Token() // the '}'
	return syntaxError(err)
}

// walkValue consumes one value whose Go type is t. A scalar's type is
// Unmarshal's to check.
func walkValue(dec *json.Decoder, t reflect.Type, path string, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		return syntaxError(err)
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch tok {
	case json.Delim('{'):
		return walkObject(dec, t, path, depth+1)
	case json.Delim('['):
		if depth+1 > maxDepth {
			return errors.New("exceeded max depth")
		}
		elem := anyType
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			elem = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if err := walkValue(dec, elem, path+"["+strconv.Itoa(i)+"]", depth+1); err != nil {
				return err
			}
		}
		_, err := dec.Token() // the ']'
		return syntaxError(err)
	}
	return nil
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
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			s.names = append(s.names, name)
			s.types[name] = f.Type
		}
		return s
	case reflect.Map:
		return shape{elem: t.Elem()}
	}
	return shape{elem: anyType}
}

// listedFields is how many fields an object may have for its messages to
// list them: a request's, a batch line's, the hello's, an error's, an
// exit's, a usage's; the dozens of a response or a selfcheck would bury
// the key a message names.
const listedFields = 4

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

// syntaxError words a tokenizer error as encoding/json's Decode would: an
// input that ends inside a value is an unexpected EOF.
func syntaxError(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func in(path string) string {
	if path == "" {
		return ""
	}
	return fmt.Sprintf(" in %q", path)
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
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

// checkUTF8 names the byte offset of the first invalid UTF-8 sequence.
func checkUTF8[T string | []byte](b T) error {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRuneInString(string(b[i:min(i+utf8.UTFMax, len(b))]))
		if r == utf8.RuneError && n <= 1 {
			return fmt.Errorf("invalid UTF-8 at offset %d", i)
		}
		i += n
	}
	return nil
}
