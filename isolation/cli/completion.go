package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"
)

// The completion scripts are static: generated here from the command
// definitions and the enumerated flags' choices. Completion never runs
// anything, not even this binary, so TAB can neither start a container
// nor read stdin; after `--` (the interpreter's words) it offers nothing.

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return rejectf("completion: name one shell: bash, zsh or fish")
			}
			t := completionTable(c.App)
			switch shell := c.Args().First(); shell {
			case "bash":
				fmt.Fprint(c.App.Writer, bashScript(t))
			case "zsh":
				fmt.Fprint(c.App.Writer, zshScript(t))
			case "fish":
				fmt.Fprint(c.App.Writer, fishScript(t))
			default:
				return rejectf("completion: unknown shell %q (bash, zsh or fish)", shell)
			}
			return nil
		},
	}
}

// completion is what the scripts offer: the commands; each command's
// flags, with the values of the enumerated ones; the words of its
// positional argument; and the app's own flags before any command.
type completion struct {
	commands []string
	usage    map[string]string     // command -> its one-line usage
	flags    map[string][]flagSpec // command -> its flags, by long name
	args     map[string][]string   // command -> words for its argument
	global   []flagSpec
}

// flagSpec is one flag as a shell sees it.
type flagSpec struct {
	long, short string // without dashes; short is "" when there is none
	value       bool   // takes a value
	file        bool   // its value is a path: the shell's file completion
	choices     []string
	usage       string
}

// names are the flag's spellings: --long, and -s when it has one.
func (f flagSpec) names() []string {
	if f.short == "" {
		return []string{"--" + f.long}
	}
	return []string{"--" + f.long, "-" + f.short}
}

func completionTable(app *cli.App) completion {
	t := completion{usage: map[string]string{}, flags: map[string][]flagSpec{}, args: map[string][]string{}}
	for _, cmd := range app.VisibleCommands() {
		t.commands = append(t.commands, cmd.Name)
		t.usage[cmd.Name] = cmd.Usage
		t.flags[cmd.Name] = flagSpecs(cmd.Flags)
	}
	t.global = flagSpecs(app.Flags)
	t.args["completion"] = []string{"bash", "zsh", "fish"}
	t.args["help"] = t.commands
	return t
}

// flagSpecs describes flags for the shells, sorted by long name, with
// their choices where they are enumerated (enumFlag).
func flagSpecs(flags []cli.Flag) []flagSpec {
	var specs []flagSpec
	for _, f := range flags {
		var s flagSpec
		for _, n := range f.Names() {
			if len(n) == 1 {
				s.short = n
			} else {
				s.long = n
			}
		}
		if d, ok := f.(cli.DocGenerationFlag); ok {
			s.value = d.TakesValue()
			s.usage = strings.ReplaceAll(d.GetUsage(), "`", "") // urfave/cli marks placeholders with backquotes
		}
		if sf, ok := f.(*cli.StringFlag); ok {
			s.file = sf.TakesFile
		}
		if gf, ok := f.(*cli.GenericFlag); ok {
			if o, ok := gf.Value.(*oneOf); ok {
				s.choices = o.choices
			}
		}
		specs = append(specs, s)
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].long < specs[j].long })
	return specs
}

// flagWords are each command's flag spellings, the words a - offers.
func (t completion) flagWords() map[string][]string {
	words := map[string][]string{}
	for cmd, specs := range t.flags {
		words[cmd] = flagNames(specs)
	}
	return words
}

// flagNames are the spellings of a command's flags, sorted.
func flagNames(specs []flagSpec) []string {
	var names []string
	for _, s := range specs {
		names = append(names, s.names()...)
	}
	sort.Strings(names)
	return names
}

// sortedKeys returns m's keys in order, so the scripts are stable.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
