package protocol

import "github.com/synapse-lang/synapse-isolation/isolation/protocol/capture"

// Streams is what a process wrote to its standard output and standard
// error, as kept within limits.MaxOutputBytes (capture.Shares splits the
// bound between the two): each as valid UTF-8 (a run of bytes that are
// not UTF-8 becomes one U+FFFD, counted in its Replaced), whole if it
// fits its share, else its head and its tail around one marker line,
// "[... N bytes dropped ...]". It is the one shape of the stream fields:
// the response, a step, the library's Result and the CLI's record embed
// it, so the JSON keys are the same everywhere.
type Streams struct {
	// Output is the standard output (Starlark: print()).
	Output string `json:"output"`
	// OutputTruncated is true exactly when OutputBytes exceeds its share.
	OutputTruncated bool `json:"output_truncated"`
	// OutputBytes is the total output written, kept or not.
	OutputBytes int64 `json:"output_bytes"`
	// OutputReplaced is how many bytes of the kept output were not UTF-8.
	// Zero: Output is the bytes as written.
	OutputReplaced int64 `json:"output_replaced_bytes"`
	// Stderr, StderrTruncated, StderrBytes and StderrReplaced are the
	// same of the standard error (a Starlark program has none).
	Stderr          string `json:"stderr"`
	StderrTruncated bool   `json:"stderr_truncated"`
	StderrBytes     int64  `json:"stderr_bytes"`
	StderrReplaced  int64  `json:"stderr_replaced_bytes"`
}

// StreamsOf returns the streams as out and errOut kept them.
func StreamsOf(out, errOut capture.Kept) Streams {
	return Streams{
		Output: out.Text, OutputTruncated: out.Truncated, OutputBytes: out.Bytes, OutputReplaced: out.Replaced,
		Stderr: errOut.Text, StderrTruncated: errOut.Truncated, StderrBytes: errOut.Bytes, StderrReplaced: errOut.Replaced,
	}
}
