package wire

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// lineFiles splits a batch line's "files" (nil when absent), an object of
// names to text or to {"base64": "..."}, into the request's text files
// and its binary ones, each as the request frame spells it; a value of
// another shape or base64 that does not decode is refused naming its file.
func lineFiles(raw json.RawMessage) (text, binary json.RawMessage, err error) {
	if raw == nil {
		return nil, nil, nil
	}
	var all map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &all) != nil {
		return nil, nil, errors.New(`"files" must be an object of names to text or {"base64": "..."}`)
	}
	texts, bins := map[string]json.RawMessage{}, map[string][]byte{}
	for name, v := range all {
		if len(v) > 0 && v[0] == '"' {
			texts[name] = v
			continue
		}
		var b struct {
			Base64 *string `json:"base64"`
		}
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.DisallowUnknownFields()
		if len(v) == 0 || v[0] != '{' || dec.Decode(&b) != nil || b.Base64 == nil {
			return nil, nil, fmt.Errorf(`file %q: must be text or {"base64": "..."}`, name)
		}
		data, err := base64.StdEncoding.Strict().DecodeString(*b.Base64)
		if err != nil {
			return nil, nil, fmt.Errorf("file %q: not base64: %v", name, err)
		}
		bins[name] = data
	}
	if len(texts) > 0 {
		if text, err = json.Marshal(texts); err != nil {
			return nil, nil, err
		}
	}
	if len(bins) > 0 {
		if binary, err = json.Marshal(bins); err != nil {
			return nil, nil, err
		}
	}
	return text, binary, nil
}
