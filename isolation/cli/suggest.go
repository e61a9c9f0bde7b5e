package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// maxSuggestDistance is how many edits a mistyped command may be from the
// one suggested: "rn", "runn" and "docter" are typos, "bogus" is not.
const maxSuggestDistance = 2

// unknownCommand refuses word as a command, suggesting the visible
// command nearest to it when one is within maxSuggestDistance edits.
func unknownCommand(c *cli.Context, word string) error {
	best, bestDist := "", maxSuggestDistance+1
	for _, cmd := range c.App.VisibleCommands() {
		if d := editDistance(word, cmd.Name); d < bestDist {
			best, bestDist = cmd.Name, d
		}
	}
	if best == "" {
		return rejectf("unknown command %q (see synapse-isolation --help)", word)
	}
	return rejectf("unknown command %q: did you mean %q? (see synapse-isolation --help)", word, best)
}

// editDistance is the Levenshtein distance between a and b, by bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// fileFlagFor is what a positional argument that names an existing file
// was likely meant as, for a command that reads a file by a flag (run and
// eval --file, batch --input): "--file prog.star"; "" otherwise.
func fileFlagFor(c *cli.Context, arg string) string {
	for _, f := range c.Command.Flags {
		if name := f.Names()[0]; (name == "file" || name == "input") && isRegularFile(arg) {
			return fmt.Sprintf("--%s %s", name, shellQuote(arg))
		}
	}
	return ""
}
