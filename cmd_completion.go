package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// Completion scripts for bash and zsh ask the binary itself for the words
// that fit (urfave/cli's --generate-bash-completion), so they follow the
// command definitions; fish gets a script generated from them.
const (
	bashCompletion = `# bash completion for synapse-isolation; load with: source <(synapse-isolation completion bash)
_synapse_isolation() {
  local cur="${COMP_WORDS[COMP_CWORD]}" words=("${COMP_WORDS[@]:0:COMP_CWORD}") opts
  if [[ "$cur" == -* ]]; then
    opts=$("${words[@]}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${words[@]}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -o bashdefault -o default -F _synapse_isolation synapse-isolation
`
	zshCompletion = `#compdef synapse-isolation
# zsh completion for synapse-isolation; load with: source <(synapse-isolation completion zsh)
_synapse_isolation() {
  local -a opts
  local cur=${words[-1]}
  if [[ "$cur" == -* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} $cur --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ -n "${opts[1]}" ]]; then _describe 'values' opts; else _files; fi
}
compdef _synapse_isolation synapse-isolation
`
)

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
				fmt.Fprint(c.App.Writer, bashCompletion)
			case "zsh":
				fmt.Fprint(c.App.Writer, zshCompletion)
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

func manCommand() *cli.Command {
	return &cli.Command{
		Name:  "man",
		Usage: "print the manual page (roff, section 1), generated from the command definitions",
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			s, err := c.App.ToManWithSection(1)
			if err != nil {
				return err
			}
			fmt.Fprint(c.App.Writer, s)
			return nil
		},
	}
}
