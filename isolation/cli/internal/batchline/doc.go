// Package batchline is the batch command's input line, the one edge
// format of a request besides the protocol's request frame: a JSON object
// with an id, the request's fields, its files as text or base64 in one
// object and its tests' data inline as text. Decode reads it strictly, by
// the rule of every frame (package strict), straight into a
// protocol.Request with the frame's own field decoders and rules, so a
// line is refused in the words the frame would be. Reader reads the lines
// (bounded, and by a goroutine of its own so a signal is seen while a read
// blocks), IDs refuses an id used twice and Count counts a file's lines for
// the progress. Only the host reads
// batch lines; the runner never links this package.
package batchline
