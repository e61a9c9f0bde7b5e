package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"
)

// The bash and zsh scripts are static: generated here from the command
// definitions and the enumerated flags' choices. Completion never runs
// anything, not even this binary, so TAB can neither start a container
// nor read stdin; after `--` (the interpreter's words) it offers nothing.
// fish gets urfave/cli's generated script, which is static too.

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return rejectf("completion: name one shell: bash, zsh or fish")
			}
			switch shell := c.Args().First(); shell {
			case "bash":
				fmt.Fprint(c.App.Writer, bashScript(completionTable(c.App)))
			case "zsh":
				fmt.Fprint(c.App.Writer, zshScript(completionTable(c.App)))
			case "fish":
				s, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				fmt.Fprint(c.App.Writer, s)
			default:
				return rejectf("completion: unknown shell %q (bash, zsh or fish)", shell)
			}
			return nil
		},
	}
}

// completion is what the scripts offer: the commands; each command's flags;
// the values of its enumerated flags; the words of its positional argument.
type completion struct {
	commands []string
	flags    map[string][]string            // command -> --long and -s names
	values   map[string]map[string][]string // command -> "--flag" -> its choices
	args     map[string][]string            // command -> words for its argument
}

func completionTable(app *cli.App) completion {
	t := completion{flags: map[string][]string{}, values: map[string]map[string][]string{}, args: map[string][]string{}}
	for _, cmd := range app.VisibleCommands() {
		t.commands = append(t.commands, cmd.Name)
		names := []string{"--help", "-h"}
		for _, f := range cmd.Flags {
			for _, n := range f.Names() {
				if len(n) == 1 {
					names = append(names, "-"+n)
				} else {
					names = append(names, "--"+n)
				}
			}
		}
		sort.Strings(names)
		t.flags[cmd.Name] = slices.Compact(names)
		for flag, vs := range choices[cmd.Name] {
			if t.values[cmd.Name] == nil {
				t.values[cmd.Name] = map[string][]string{}
			}
			t.values[cmd.Name]["--"+flag] = vs
		}
	}
	t.args["completion"] = []string{"bash", "zsh", "fish"}
	t.args["help"] = t.commands
	return t
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
  if ((COMP_CWORD == 1)); then
`)
	fmt.Fprintf(&b, "    COMPREPLY=($(compgen -W %q -- \"$cur\"))\n    return 0\n  fi\n", strings.Join(t.commands, " "))
	b.WriteString("  case \"${COMP_WORDS[1]}:$prev\" in\n")
	assign := func(w []string) string { return fmt.Sprintf("words=%q", strings.Join(w, " ")) }
	writeValueArms(&b, t, assign)
	b.WriteString("    *)\n      if [[ $cur == -* ]]; then\n        case ${COMP_WORDS[1]} in\n")
	writeCommandArms(&b, t.commands, t.flags, assign)
	b.WriteString("        esac\n      else\n        case ${COMP_WORDS[1]} in\n")
	writeCommandArms(&b, sortedKeys(t.args), t.args, assign)
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

// writeValueArms writes the case arms, shared by the bash and zsh
// scripts, that offer an enumerated flag's values after it; assign spells
// "these words are the candidates" in the shell's syntax.
func writeValueArms(b *strings.Builder, t completion, assign func([]string) string) {
	for _, cmd := range sortedKeys(t.values) {
		for _, flag := range sortedKeys(t.values[cmd]) {
			fmt.Fprintf(b, "    %s:%s) %s ;;\n", cmd, flag, assign(t.values[cmd][flag]))
		}
	}
}

// writeCommandArms writes one case arm a command, offering its words.
func writeCommandArms(b *strings.Builder, commands []string, words map[string][]string, assign func([]string) string) {
	for _, cmd := range commands {
		fmt.Fprintf(b, "          %s) %s ;;\n", cmd, assign(words[cmd]))
	}
}

func zshScript(t completion) string {
	var b strings.Builder
	b.WriteString(`#compdef synapse-isolation
# zsh completion for synapse-isolation; load with: source <(synapse-isolation completion zsh)
# Static: it runs nothing, so TAB never starts a container or reads stdin.
_synapse_isolation() {
  local -a opts
  local i
  for ((i = 2; i < CURRENT; i++)); do
    [[ ${words[i]} == -- ]] && return 0 # the interpreter's words: nothing to offer
  done
  if ((CURRENT == 2)); then
`)
	fmt.Fprintf(&b, "    opts=(%s)\n    compadd -a opts\n    return\n  fi\n", strings.Join(t.commands, " "))
	b.WriteString("  case \"${words[2]}:${words[CURRENT-1]}\" in\n")
	assign := func(w []string) string { return "opts=(" + strings.Join(w, " ") + ")" }
	writeValueArms(&b, t, assign)
	b.WriteString("    *)\n      if [[ ${words[CURRENT]} == -* ]]; then\n        case ${words[2]} in\n")
	writeCommandArms(&b, t.commands, t.flags, assign)
	b.WriteString("        esac\n      else\n        case ${words[2]} in\n")
	writeCommandArms(&b, sortedKeys(t.args), t.args, assign)
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

func manCommand() *cli.Command {
	return &cli.Command{
		Name:  "man",
		Usage: "print the manual page (roff, section 1), generated from the command definitions",
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			s, err := manPage(c.App)
			if err != nil {
				return err
			}
			fmt.Fprint(c.App.Writer, s)
			return nil
		},
	}
}
