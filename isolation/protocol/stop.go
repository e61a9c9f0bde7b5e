package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// The host's stop: a request frame of a program that runs once (not a
// judge's) may begin with "stop_ms", how many milliseconds after the
// runner read the request the program must be stopped, if that comes
// before the runner's own --timeout. The host sets it to its own deadline
// less the time the engine takes to remove a stopped container, so a run
// that meets its deadline ends there, its container already gone, instead
// of being killed and removed from outside after it. The host still bounds
// the run: a runner that ignores the stop is killed shortly after the
// deadline.
//
// The stop rides outside the request's bound (limits.MaxRequestBytes): a
// frame that begins with it may be stopBytesMax longer.
const stopPrefix = `{"stop_ms":`

// stopBytesMax is the most the stop adds to a frame: its prefix, a
// millisecond count of up to 19 digits and the comma after it.
const stopBytesMax = len(stopPrefix) + 19 + 1

// MaxFrameBytes is the longest request frame a runner reads: the request's
// bound and room for the stop.
const MaxFrameBytes = limits.MaxRequestBytes + stopBytesMax

// maxStop is the longest stop: the longest timeout of a run.
const maxStop = limits.MaxTimeout

// stopBytes is the room the stop may take in frame b: stopBytesMax if b
// begins with it, else none.
func stopBytes(b []byte) int {
	if bytes.HasPrefix(b, []byte(stopPrefix)) {
		return stopBytesMax
	}
	return 0
}

// WithStop puts the stop d, rounded up to a whole millisecond, before the
// fields of body, a request frame as EncodeRequest writes it (a JSON
// object whose first field is "source").
func WithStop(body []byte, d time.Duration) []byte {
	ms := (d + time.Millisecond - 1) / time.Millisecond
	out := make([]byte, 0, len(body)+stopBytesMax)
	out = append(out, stopPrefix...)
	out = strconv.AppendInt(out, int64(max(ms, 1)), 10)
	out = append(out, ',')
	return append(out, body[1:]...)
}

// decodeStop decodes the stop's raw value: absent, zero; else a positive
// whole number of milliseconds.
func decodeStop(raw json.RawMessage) (time.Duration, error) {
	if raw == nil {
		return 0, nil
	}
	ms, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || ms <= 0 || ms > int64(maxStop/time.Millisecond) {
		return 0, fmt.Errorf(`"stop_ms" must be a whole number of milliseconds from 1 to %d`, maxStop/time.Millisecond)
	}
	return time.Duration(ms) * time.Millisecond, nil
}
