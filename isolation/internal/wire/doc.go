// Package wire is the host's side of the protocol: the strict decoders of
// the frames the host reads (the runner's hello and response, a batch
// line), by the one rule of every frame (package strict) that the runner's
// request decoder shares. A runner image needs none of it; the reference
// runner uses DecodeResponse on its evaluator child's answer.
package wire
