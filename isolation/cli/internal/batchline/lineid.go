package batchline

import (
	"bytes"
	"encoding/json"
)

// lineID is the "id" of a batch line that strict decoding refused for
// something else (a key twice inside "files", say), so the refusal still
// carries the id the line's author gave: read from the top level alone,
// only when the line is JSON and names "id" exactly once with a valid
// value; nil otherwise.
func lineID(b []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var id json.RawMessage
	seen := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if t == "id" {
			if seen {
				return nil // which one the author meant is not ours to pick
			}
			id, seen = v, true
		}
	}
	if !validID(id) {
		return nil
	}
	return id
}
