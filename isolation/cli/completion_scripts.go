package cli

import (
	"fmt"
	"strings"
)

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
		strings.Join(flagNames(t.global), " "), strings.Join(t.commands, " "))
	b.WriteString("    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n    return 0\n  fi\n")
	b.WriteString("  case \"${COMP_WORDS[1]}:$prev\" in\n")
	assign := func(w []string) string { return fmt.Sprintf("words=%q", strings.Join(w, " ")) }
	writeValueArms(&b, t, assign)
	// A value that is neither a path nor one of a list (an image ID, a
	// size): nothing to offer, and no file names either.
	for _, cmd := range t.commands {
		for _, f := range t.flags[cmd] {
			if f.value && !f.file && len(f.choices) == 0 {
				for _, n := range f.names() {
					fmt.Fprintf(&b, "    %s:%s) compopt +o default +o bashdefault 2>/dev/null; return 0 ;;\n", cmd, n)
				}
			}
		}
	}
	b.WriteString("    *)\n      if [[ $cur == -* ]]; then\n        case ${COMP_WORDS[1]} in\n")
	writeCommandArms(&b, t.commands, t.flagWords(), assign)
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
		strings.Join(flagNames(t.global), " "), strings.Join(t.commands, " "))
	b.WriteString("    compadd -a opts\n    return\n  fi\n")
	b.WriteString("  case \"${words[2]}:$prev\" in\n")
	assign := func(w []string) string { return "opts=(" + strings.Join(w, " ") + ")" }
	writeValueArms(&b, t, assign)
	b.WriteString("    *)\n      if [[ $cur == -* ]]; then\n        case ${words[2]} in\n")
	writeCommandArms(&b, t.commands, t.flagWords(), assign)
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
		fmt.Fprintf(&b, "complete -c synapse-isolation -n %s -a %s -d %s\n", at(""), cmd, fishQuote(t.usage[cmd]))
	}
	for _, cmd := range t.commands {
		for _, f := range t.flags[cmd] {
			line(cmd, f)
		}
		if words := t.args[cmd]; len(words) > 0 {
			fmt.Fprintf(&b, "complete -c synapse-isolation -n %s -a %s\n", at(cmd), fishQuote(strings.Join(words, " ")))
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
		for _, f := range t.flags[cmd] {
			if len(f.choices) == 0 {
				continue
			}
			for _, n := range f.names() {
				fmt.Fprintf(b, "    %s:%s) %s ;;\n", cmd, n, assign(f.choices))
			}
		}
	}
}

// writeCommandArms writes one case arm a command, offering its words.
func writeCommandArms(b *strings.Builder, commands []string, words map[string][]string, assign func([]string) string) {
	for _, cmd := range commands {
		fmt.Fprintf(b, "          %s) %s ;;\n", cmd, assign(words[cmd]))
	}
}
