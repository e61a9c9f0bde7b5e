package batchline

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// lineFiles splits a batch line's "files" (nil when absent), an object of
// names to text or to {"base64": "..."}, into the request's text files
// and its binary ones, each nil when there are none; a value of another
// shape or base64 that does not decode is refused naming its file.
func lineFiles(raw json.RawMessage) (text map[string]string, binary map[string][]byte, err error) {
	if raw == nil {
		return nil, nil, nil
	}
	var all map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &all) != nil {
		return nil, nil, errors.New(`"files" must be an object of names to text or {"base64": "..."}`)
	}
	for name, v := range all {
		if len(v) > 0 && v[0] == '"' {
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return nil, nil, fmt.Errorf("file %q: %v", name, err)
			}
			if text == nil {
				text = map[string]string{}
			}
			text[name] = s
			continue
		}
		data, err := lineBase64(name, v)
		if err != nil {
			return nil, nil, err
		}
		if binary == nil {
			binary = map[string][]byte{}
		}
		binary[name] = data
	}
	return text, binary, nil
}

// lineBase64 decodes v, the value of file name in a batch line's "files"
// that is not text: {"base64": "..."}, nothing else.
func lineBase64(name string, v json.RawMessage) ([]byte, error) {
	var b struct {
		Base64 *string `json:"base64"`
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.DisallowUnknownFields()
	if len(v) == 0 || v[0] != '{' || dec.Decode(&b) != nil || b.Base64 == nil {
		return nil, fmt.Errorf(`file %q: must be text or {"base64": "..."}`, name)
	}
	data, err := base64.StdEncoding.Strict().DecodeString(*b.Base64)
	if err != nil {
		return nil, fmt.Errorf("file %q: not base64: %v", name, err)
	}
	return data, nil
}
