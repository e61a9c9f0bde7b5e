package cli

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// lineDir is the subdirectory of --output-dir a line's files go to: its
// id when that is a string and a plain name not spelled as a line's
// directory, else line-N. The two spellings never meet, so no id can
// name another line's directory.
func lineDir(line int, id json.RawMessage) string {
	var s string
	if json.Unmarshal(id, &s) == nil && protocol.CheckName(s) == nil && !lineDirName.MatchString(s) {
		return s
	}
	return "line-" + strconv.Itoa(line)
}

// lineDirName is how a line's own directory is spelled, in any case (a
// file system that folds case takes LINE-1 for line-1).
var lineDirName = regexp.MustCompile(`(?i)^line-[0-9]+$`)

// lineDirs holds each --output-dir subdirectory taken and the line that
// took it. Distinct ids can still name one directory where the file
// system folds case (macOS, Windows: "A" and "a"), so a directory is
// claimed before its line runs, by a folded key, and a second claim is
// refused naming both lines: one tenant's line never decides another's
// files.
type lineDirs map[string]int

// claim takes line's directory, or refuses it when an earlier line has it.
// A line-N directory is its line's alone, so only ids are kept.
func (d lineDirs) claim(line int, id json.RawMessage) error {
	dir := lineDir(line, id)
	if dir == "line-"+strconv.Itoa(line) {
		return nil
	}
	key := strings.ToLower(strings.ToUpper(dir)) // folds ſ and K (Kelvin) too
	if first, taken := d[key]; taken {
		return fmt.Errorf("line %d: --output-dir: its files would go to %q, line %d's directory (ids that differ only in case share one on some file systems)", line, dir, first)
	}
	d[key] = line
	return nil
}
