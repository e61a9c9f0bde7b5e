package batchline

import (
	"encoding/json"
	"errors"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/strict"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// line is a batch line's JSON form, the request's one edge besides the
// request frame: it carries an id, its files' bytes as text or base64 in
// one object (lineFiles), and its tests' data inline as text (lineTest),
// where the frame has "binary" apart and the tests' sizes, their bytes
// after it. Each field is read raw, then by the request frame's own
// decoder of it, so a field is refused in the same words either way.
type line struct {
	ID      json.RawMessage `json:"id"`
	Source  json.RawMessage `json:"source"`
	Stdin   json.RawMessage `json:"stdin"`
	Files   json.RawMessage `json:"files"`
	Collect json.RawMessage `json:"collect"`
	Tests   []lineTest      `json:"tests"`
	Compare json.RawMessage `json:"compare"`
	Checker json.RawMessage `json:"checker"`
	// Interactor is as Checker, a judge's interactor.
	Interactor json.RawMessage `json:"interactor"`
}

// lineChecker is a line's "checker": its source and its image's ID.
type lineChecker struct {
	Source json.RawMessage `json:"source"`
	Image  json.RawMessage `json:"image"`
}

// Decode strictly decodes a batch line, {"id": ..., "source": "...",
// "stdin": "...", "files": {"NAME": "...", ...}} (all but source
// optional, "collect", "tests" and "compare" as a request's, and
// "checker": {"source", "image"}, a judge's checker, and "interactor",
// the same of an interactor), by the
// rule of every frame and a request's rules (protocol.CheckRequest),
// straight into the request, and its id (a string, a number or null) even
// when the rest is refused, so the refusal can carry it. A line longer
// than limits.MaxLineBytes is longer than any whose request is within the
// limit: a reader keeps at most one byte more of it, and its refusal names
// the part the line passes the bound in, with the id when it came before
// (cutLine). starlark applies Starlark's source rules (no NUL byte) as
// Run does without Options.Exec.
func Decode(b []byte, starlark bool) (json.RawMessage, protocol.Request, error) {
	if len(b) > limits.MaxLineBytes {
		id, part := cutLine(b)
		return id, protocol.Request{}, &lineTooLarge{part: part}
	}
	var l line
	if err := strict.Decode(b, &l); err != nil {
		return lineID(b), protocol.Request{}, err
	}
	if !validID(l.ID) {
		return nil, protocol.Request{}, errors.New(`"id" must be a string or a number`)
	}
	req, err := l.request(starlark)
	if err != nil {
		return l.ID, protocol.Request{}, err
	}
	return l.ID, req, nil
}

// request is the line's request, each field decoded by its own rule, its
// files first (a file of neither shape is refused before the rest), then
// held to every rule of a request.
func (l *line) request(starlark bool) (protocol.Request, error) {
	var req protocol.Request
	var err error
	if req.Files, req.Binary, err = lineFiles(l.Files); err != nil {
		return protocol.Request{}, err
	}
	if req.Source, err = protocol.DecodeSource(l.Source, starlark); err != nil {
		return protocol.Request{}, err
	}
	if req.Stdin, err = protocol.DecodeString(l.Stdin, "stdin"); err != nil {
		return protocol.Request{}, err
	}
	if req.Collect, err = protocol.DecodeCollect(l.Collect); err != nil {
		return protocol.Request{}, err
	}
	if req.Compare, err = protocol.DecodeString(l.Compare, "compare"); err != nil {
		return protocol.Request{}, err
	}
	req.Tests = fromLine(l.Tests)
	if req.Grader, err = l.grader(); err != nil {
		return protocol.Request{}, err
	}
	return req, protocol.CheckRequest(req, starlark)
}

// grader is the line's grader: its "checker" or its "interactor" (nil
// when it has neither), never both.
func (l *line) grader() (protocol.Grader, error) {
	checker, err := decodeChecker(l.Checker)
	if err != nil {
		return nil, err
	}
	interactor, err := decodeInteractor(l.Interactor)
	switch {
	case err != nil:
		return nil, err
	case checker != nil && interactor != nil:
		return nil, errors.New("interactor: a checker beside it: the interactor grades")
	case checker != nil:
		return checker, nil
	case interactor != nil:
		return interactor, nil
	}
	return nil, nil
}

// decodeChecker decodes a line's "checker", {"source": "...", "image":
// "sha256:..."}, both strings (nil when absent); the library holds them
// to a checker's rules.
func decodeChecker(raw json.RawMessage) (*protocol.Checker, error) {
	src, image, ok, err := decodeGrader(raw, "checker")
	if !ok {
		return nil, err
	}
	return &protocol.Checker{Source: src, Image: image}, nil
}

// decodeInteractor decodes a line's "interactor" as decodeChecker does a
// checker.
func decodeInteractor(raw json.RawMessage) (*protocol.Interactor, error) {
	src, image, ok, err := decodeGrader(raw, "interactor")
	if !ok {
		return nil, err
	}
	return &protocol.Interactor{Source: src, Image: image}, nil
}

// decodeGrader decodes the field name, {"source": "...", "image": "..."};
// ok is false when it is absent or refused (err).
func decodeGrader(raw json.RawMessage, name string) (src, image string, ok bool, err error) {
	if raw == nil {
		return "", "", false, nil
	}
	var c lineChecker
	if raw[0] != '{' || strict.Decode(raw, &c) != nil || c.Source == nil || c.Image == nil {
		return "", "", false, errors.New(`"` + name + `" must be an object {"source": "...", "image": "sha256:..."}`)
	}
	if src, err = protocol.DecodeString(c.Source, name+" source"); err != nil {
		return "", "", false, err
	}
	if image, err = protocol.DecodeString(c.Image, name+" image"); err != nil {
		return "", "", false, err
	}
	return src, image, true, nil
}
