package runargs

import (
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
)

// TestInlineCodeIsRefused: a command that runs code from its own command
// line would take the source's path as one more argument and never run
// the source; it is refused, naming the option. Commands that read a
// program file pass, their own options and the program's arguments too.
func TestInlineCodeIsRefused(t *testing.T) {
	for cmd, want := range map[string]string{
		"python3 -c print(1)":          "-c",
		"python3 -m pytest":            "-m",
		"python3.11 -I -c x":           "-c",
		"python3 -Ic x":                "-Ic",
		"python3 -W ignore -c x":       "-c",
		"/usr/bin/python3 -B -m http":  "-m",
		"node -e 1":                    "-e",
		"node --eval=1":                "--eval",
		"node --print 1":               "--print",
		"perl -le print":               "-le",
		"ruby -e 1":                    "-e",
		"sh -c true":                   "-c",
		"bash -o pipefail -ec true":    "-ec",
		"python3 -":                    "",
		"python3 -I":                   "",
		"python3 -u - -c":              "", // -c is the program's argument
		"python3 - -m x":               "",
		"python3 -Wignore -":           "",
		"sh -e":                        "",
		"sh":                           "",
		"node -":                       "",
		"lua -e x":                     "", // not a known interpreter: its path goes last
		"python3 /opt/wrapper.py -c x": "",
		"perl -I lib -":                "",
		"python3 -X importtime -":      "",
		"ruby --disable-gems -":        "",
		"ruby3.1 -E UTF-8 -e 1":        "-e",
		"ruby3.1 -EUTF-8 -":            "",
		"php -r echo(1);":              "-r",
		"php8.2 -n -d x=1 -r 1":        "-r",
		"php -B 1 -R 2":                "-B",
		"php8.2 -n -ddisplay_errors=stderr -dmemory_limit=-1 -": "",
		"php -f /opt/x.php -": "",
	} {
		t.Run(cmd, func(t *testing.T) {
			exec := strings.Fields(cmd)
			assert.Equal(t, inlineOption(exec), want)
			err := Args{Timeout: time.Second, Exec: exec}.Validate()
			if want == "" {
				assert.NilError(t, err)
				return
			}
			assert.ErrorContains(t, err, "exec: "+exec[0]+" "+want+" runs the code given to "+want+", not the source")
		})
	}
}
