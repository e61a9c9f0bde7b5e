// Command synapse-isolation runs untrusted source code in a fresh,
// locked-down Docker container per request, prints the exact docker argv it
// uses, and audits captured docker argvs against its policy. The command
// line itself is the package isolation/cli.
package main

import (
	"context"
	"os"

	"github.com/synapse-lang/synapse-isolation/isolation/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args, os.Environ(), os.Stdin, os.Stdout, os.Stderr))
}
