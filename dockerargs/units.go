package dockerargs

import "github.com/synapse-lang/synapse-isolation/limits"

// parseBytes reads a size with the grammar `run --memory` shares with
// docker (limits.ParseBytes). A size that is not a whole number of bytes
// is unreadable here: docker would truncate it to a limit nobody wrote.
func parseBytes(s string) (limits.Bytes, error) { return limits.ParseBytes(s) }
