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
			script := map[string]func(completion) string{"bash": bashScript, "zsh": zshScript, "fish": fishScript}[c.Args().First()]
			if script == nil {
				return rejectf("completion: unknown shell %q (bash, zsh or fish)", c.Args().First())
			}
			fmt.Fprint(c.App.Writer, script(completionTable(c.App)))
			return nil
		},
	}
}

// completion is what the scripts offer: the app's own flags before any
// command, and each command with its flags and the words of its argument.
type completion struct {
	global   []flagSpec
	commands []commandSpec
}

// commandSpec is one command as a shell sees it.
type commandSpec struct {
	name, usage string
	flags       []flagSpec // sorted by long name
	args        []string   // words for its positional argument
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
	t := completion{global: flagSpecs(app.Flags)}
	for _, cmd := range app.VisibleCommands() {
		t.commands = append(t.commands, commandSpec{name: cmd.Name, usage: cmd.Usage, flags: flagSpecs(cmd.Flags)})
	}
	for i, cmd := range t.commands {
		switch cmd.name {
		case "completion":
			t.commands[i].args = []string{"bash", "zsh", "fish"}
		case "help":
			t.commands[i].args = t.names()
		}
	}
	return t
}

// names are the commands' names, in the app's order.
func (t completion) names() []string {
	names := make([]string, len(t.commands))
	for i, c := range t.commands {
		names[i] = c.name
	}
	return names
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

// flagNames are the spellings of a command's flags, sorted.
func flagNames(specs []flagSpec) []string {
	var names []string
	for _, s := range specs {
		names = append(names, s.names()...)
	}
	sort.Strings(names)
	return names
}

// The three scripts share one shape: before a command, the commands (or
// the app's own flags); after -- nothing; after an enumerated flag its
// choices (also as --flag=VALUE); a word starting with - the command's
// flags; otherwise the words of the command's argument.

func bashScript(t completion) string {
	var b strings.Builder
	b.WriteString(`# bash completion for synapse-isolation; load with: source <(synapse-isolation completion bash)
# Static: it runs nothing, so TAB never starts a container or reads stdin.
_synapse_isolation() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} words="" i
  COMPREPLY=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    if [[ ${COMP_WORDS[i]} == -- ]]; then
      # The interpreter's words: nothing to offer, not even file names.
      compopt +o default +o bashdefault 2>/dev/null
      return 0
    fi
  done
  # bash splits --flag=VALUE at the =: complete VALUE as after --flag.
  if [[ $cur == = ]]; then
    cur=""
  elif [[ $prev == = ]]; then
    prev=${COMP_WORDS[COMP_CWORD-2]}
  fi
  if ((COMP_CWORD == 1)); then
`)
	fmt.Fprintf(&b, "    if [[ $cur == -* ]]; then words=%q; else words=%q; fi\n",
		strings.Join(flagNames(t.global), " "), strings.Join(t.names(), " "))
	b.WriteString("    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n    return 0\n  fi\n")
	b.WriteString("  case \"${COMP_WORDS[1]}:$prev\" in\n")
	assign := func(w []string) string { return fmt.Sprintf("words=%q", strings.Join(w, " ")) }
	writeValueArms(&b, t, assign)
	// A value that is neither a path nor one of a list (an image ID, a
	// size): nothing to offer, and no file names either.
	for _, cmd := range t.commands {
		for _, f := range cmd.flags {
			if f.value && !f.file && len(f.choices) == 0 {
				for _, n := range f.names() {
					fmt.Fprintf(&b, "    %s:%s) compopt +o default +o bashdefault 2>/dev/null; return 0 ;;\n", cmd.name, n)
				}
			}
		}
	}
	b.WriteString("    *)\n      if [[ $cur == -* ]]; then\n        case ${COMP_WORDS[1]} in\n")
	writeCommandArms(&b, t, func(c commandSpec) []string { return flagNames(c.flags) }, assign)
	b.WriteString("        esac\n      else\n        case ${COMP_WORDS[1]} in\n")
	writeCommandArms(&b, t, func(c commandSpec) []string { return c.args }, assign)
	b.WriteString(`        esac
      fi ;;
  esac
  [[ -n $words ]] && COMPREPLY=($(compgen -W "$words" -- "$cur"))
  return 0
}
complete -o bashdefault -o default -F _synapse_isolation synapse-isolation
`)
	return b.String()
}

func zshScript(t completion) string {
	var b strings.Builder
	b.WriteString(`#compdef synapse-isolation
# zsh completion for synapse-isolation; load with: source <(synapse-isolation completion zsh)
# Static: it runs nothing, so TAB never starts a container or reads stdin.
_synapse_isolation() {
  local -a opts
  local i cur=${words[CURRENT]} prev=${words[CURRENT-1]}
  for ((i = 2; i < CURRENT; i++)); do
    [[ ${words[i]} == -- ]] && return 0 # the interpreter's words: nothing to offer
  done
  if [[ $cur == --*=* ]]; then
    # --flag=VALUE: complete VALUE as after --flag.
    prev=${cur%%=*}
    compset -P '*='
    cur=${cur#*=}
  fi
  if ((CURRENT == 2)); then
`)
	fmt.Fprintf(&b, "    if [[ $cur == -* ]]; then opts=(%s); else opts=(%s); fi\n",
		strings.Join(flagNames(t.global), " "), strings.Join(t.names(), " "))
	b.WriteString("    compadd -a opts\n    return\n  fi\n")
	b.WriteString("  case \"${words[2]}:$prev\" in\n")
	assign := func(w []string) string { return "opts=(" + strings.Join(w, " ") + ")" }
	writeValueArms(&b, t, assign)
	b.WriteString("    *)\n      if [[ $cur == -* ]]; then\n        case ${words[2]} in\n")
	writeCommandArms(&b, t, func(c commandSpec) []string { return flagNames(c.flags) }, assign)
	b.WriteString("        esac\n      else\n        case ${words[2]} in\n")
	writeCommandArms(&b, t, func(c commandSpec) []string { return c.args }, assign)
	b.WriteString(`          *) _files; return ;;
        esac
      fi ;;
  esac
  compadd -a opts
}
compdef _synapse_isolation synapse-isolation
`)
	return b.String()
}

// fishScript describes every flag to fish itself, which then handles
// --flag VALUE, --flag=VALUE and -s VALUE alike.
func fishScript(t completion) string {
	var b strings.Builder
	b.WriteString(`# fish completion for synapse-isolation; load with: synapse-isolation completion fish | source
# Static: it runs nothing, so TAB never starts a container or reads stdin.

# __synapse_isolation_at CMD: the line's command is CMD ("" before one) and
# no -- comes before the cursor (after it, the interpreter's words: nothing
# to offer).
function __synapse_isolation_at
    set -l words (commandline -opc)
    set -e words[1]
    contains -- -- $words; and return 1
    test (count $words) -eq 0; and set words ""
    test "$words[1]" = "$argv[1]"
end
# No file names unless a flag's value is a path.
complete -c synapse-isolation -f
`)
	at := func(cmd string) string { return fishQuote("__synapse_isolation_at " + fishQuote(cmd)) }
	line := func(cmd string, f flagSpec) {
		fmt.Fprintf(&b, "complete -c synapse-isolation -n %s -l %s", at(cmd), f.long)
		if f.short != "" {
			fmt.Fprintf(&b, " -s %s", f.short)
		}
		switch {
		case len(f.choices) > 0:
			fmt.Fprintf(&b, " -x -a %s", fishQuote(strings.Join(f.choices, " ")))
		case f.file:
			b.WriteString(" -r -F")
		case f.value:
			b.WriteString(" -x")
		}
		fmt.Fprintf(&b, " -d %s\n", fishQuote(f.usage))
	}
	for _, f := range t.global {
		line("", f)
	}
	for _, cmd := range t.commands {
		fmt.Fprintf(&b, "complete -c synapse-isolation -n %s -a %s -d %s\n", at(""), cmd.name, fishQuote(cmd.usage))
	}
	for _, cmd := range t.commands {
		for _, f := range cmd.flags {
			line(cmd.name, f)
		}
		if len(cmd.args) > 0 {
			fmt.Fprintf(&b, "complete -c synapse-isolation -n %s -a %s\n", at(cmd.name), fishQuote(strings.Join(cmd.args, " ")))
		}
	}
	return b.String()
}

// fishQuote single-quotes s for fish, where only \ and ' are special
// inside single quotes.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// writeValueArms writes the case arms, shared by the bash and zsh
// scripts, that offer an enumerated flag's values after it; assign spells
// "these words are the candidates" in the shell's syntax.
func writeValueArms(b *strings.Builder, t completion, assign func([]string) string) {
	for _, cmd := range t.commands {
		for _, f := range cmd.flags {
			for _, n := range f.names() {
				if len(f.choices) > 0 {
					fmt.Fprintf(b, "    %s:%s) %s ;;\n", cmd.name, n, assign(f.choices))
				}
			}
		}
	}
}

// writeCommandArms writes one case arm a command that has words to offer.
func writeCommandArms(b *strings.Builder, t completion, words func(commandSpec) []string, assign func([]string) string) {
	for _, cmd := range t.commands {
		if w := words(cmd); w != nil {
			fmt.Fprintf(b, "          %s) %s ;;\n", cmd.name, assign(w))
		}
	}
}
