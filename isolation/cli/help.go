package cli

import "github.com/urfave/cli/v2"

// helpCommand is `help [COMMAND]`: the same text as COMMAND --help.
// urfave/cli's own help command is one value shared by every app, which
// each run that uses it changes; a command named help replaces it.
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Usage:     "show the commands, or one command's help",
		ArgsUsage: "[COMMAND]",
		// urfave/cli answers a command's --help by calling its own help
		// action, which, for a command named help, prints the app's
		// help; so this command reads its words itself.
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			switch c.Args().Len() {
			case 0:
				return cli.ShowAppHelp(c)
			case 1:
				if w := c.Args().First(); w == "--help" || w == "-h" {
					return cli.ShowCommandHelp(c, "help")
				}
				if c.App.Command(c.Args().First()) == nil {
					return rejectf("help: unknown command %q", c.Args().First())
				}
				return cli.ShowCommandHelp(c, c.Args().First())
			}
			return rejectf("help: name one command")
		},
	}
}

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
