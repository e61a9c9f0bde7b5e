package cli

import (
	"fmt"
	"strings"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// manPage renders the section-1 page: urfave/cli's markdown of the
// commands, with EXIT STATUS, ENVIRONMENT and EXAMPLES added, and every
// angle-bracket placeholder (sha256:<64 hex>) escaped so that the
// markdown renderer does not take it for an HTML tag and drop it.
func manPage(app *cli.App) (string, error) {
	md, err := app.ToMarkdown()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("% " + app.Name + " 1\n\n")
	b.WriteString(escapeAngles(md))
	b.WriteString("\n# EXIT STATUS\n\n`run` and `eval` exit with their verdict's status; `batch` with that of the most serious verdict it saw:\n\n")
	for _, s := range exitStatuses() {
		fmt.Fprintf(&b, "**%d** %s\n: %s\n\n", s.code, s.name, escapeAngles(s.when))
	}
	fmt.Fprintf(&b, "`audit` exits 0 when the argv is compliant, %[1]d when it is not, %[2]d when it is not a docker run command at all. "+
		"`doctor` exits 0 when every check passes, %[1]d otherwise. Bad flags exit %[2]d everywhere.\n", exitFailedCheck, status(protocol.Rejected))
	b.WriteString(`
# ENVIRONMENT

**SYNAPSE_IMAGE**
: the image ID for **--image** when the flag is not given (run, batch, argv, doctor)

**DOCKER_HOST**
: the engine the docker CLI reaches, as for docker itself; **--context** names a configured one

**DOCKER_CONFIG**
: the docker CLI's configuration directory; proxies configured there would reach the container, so run refuses them

# EXAMPLES

Run a program in a fresh locked-down container and print one JSON verdict:

    synapse-isolation run --image "$(scripts/build-image.sh)" --code '1+2'

Print the exact argv that run executes, and audit it:

    synapse-isolation argv --image sha256:<64 hex> | synapse-isolation audit

Run JSON Lines requests from a warm pool, four containers at a time:

    synapse-isolation batch --image "$SYNAPSE_IMAGE" --parallel 4 < requests.jsonl

Check the engine and an image against the policy:

    synapse-isolation doctor --image "$SYNAPSE_IMAGE"

Remove what a killed supervisor and its reaper left (found by the tool's labels: a gone owner, a passed deadline):

    synapse-isolation gc
`)
	return string(md2man.Render([]byte(b.String()))), nil
}

// escapeAngles backslash-escapes < and > outside code, where markdown
// reads them as HTML; code spans and fenced blocks show them as they are.
func escapeAngles(md string) string {
	var b strings.Builder
	fenced := false
	for _, line := range strings.SplitAfter(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			b.WriteString(line)
			continue
		}
		if fenced {
			b.WriteString(line)
			continue
		}
		inCode := false
		for _, r := range line {
			switch {
			case r == '`':
				inCode = !inCode
			case !inCode && (r == '<' || r == '>'):
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
	}
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
