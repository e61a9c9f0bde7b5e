package batchline

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"unicode/utf8"
)

// IDs remembers the line each id was first seen on: an id names its
// result for a script, above all as results come in completion order, so
// a second line with an id already taken is refused.
type IDs map[[sha256.Size]byte]int

// See records id's line, or, when an earlier line had the same id,
// returns the refusal. No id (absent or null) never repeats.
func (ids IDs) See(id json.RawMessage, line int) error {
	key, ok := idKey(id)
	if !ok {
		return nil
	}
	if first, seen := ids[key]; seen {
		return fmt.Errorf("id %s repeats line %d's: each id must name one request", ShortID(id), first)
	}
	ids[key] = line
	return nil
}

// idKey is an id's identity, hashed so a long one costs 32 bytes: a
// string by its decoded text, a number by its value (1, 1.0 and 1e0 are
// one id, as they are to most scripts that parse them), the text as
// written where the value over- or underflows.
func idKey(id json.RawMessage) (key [sha256.Size]byte, ok bool) {
	if len(id) == 0 || string(id) == "null" {
		return key, false
	}
	text := "n" + string(id)
	if id[0] == '"' {
		var s string
		if json.Unmarshal(id, &s) == nil {
			text = "s" + s
		}
	} else if f, _, err := big.ParseFloat(string(id), 10, 256, big.ToNearestEven); err == nil && !f.IsInf() {
		mantissa, _, _ := strings.Cut(strings.ToLower(string(id)), "e")
		switch {
		case f.Sign() != 0:
			text = "n" + f.Text('g', -1)
		case strings.Trim(mantissa, "-0.") == "": // a zero, -0 too
			text = "n0"
		}
	}
	return sha256.Sum256([]byte(text)), true
}

// ShortID is id as JSON, cut to a readable length for a message.
func ShortID(id json.RawMessage) string {
	const maxShown = 40
	s := string(id)
	if len(s) <= maxShown {
		return s
	}
	cut := maxShown
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
