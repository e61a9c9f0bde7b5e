package cli

import "github.com/urfave/cli/v2"

// helpCommand is `help [COMMAND]`: the same text as COMMAND --help.
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
