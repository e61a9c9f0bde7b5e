package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// buildVersion is what this binary knows of its own build: the module
// version and, when it was built from a checkout, the VCS revision.
type buildVersion struct {
	Version  string `json:"version"`
	Revision string `json:"revision"`
	Modified bool   `json:"modified"`
	Protocol int    `json:"protocol"`
	Go       string `json:"go"`
}

func readBuildVersion() buildVersion {
	v := buildVersion{Version: "(devel)", Protocol: protocol.Version, Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is the one-line form `--version` and `version` print.
func (v buildVersion) String() string {
	// A build without VCS stamping (-buildvcs=false, a tarball) says so
	// rather than printing nothing where a revision belongs.
	rev := ", revision unknown"
	if v.Revision != "" {
		rev = ", revision " + v.Revision
		if v.Modified {
			rev += " (modified)"
		}
	}
	return fmt.Sprintf("%s (protocol v%d%s, %s)", v.Version, v.Protocol, rev, v.Go)
}

// versionOptions are version's flags.
type versionOptions struct{ format oneOf }

func versionCommand(s *session) *cli.Command {
	var o versionOptions
	return &cli.Command{
		Name:  "version",
		Usage: "print the version: module version, VCS revision, protocol, Go release",
		Flags: []cli.Flag{reportFormatFlag(&o.format)},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			v := readBuildVersion()
			if o.format.value == "json" {
				_ = writeJSON(s.stdout, v)
				return nil
			}
			fmt.Fprintf(s.stdout, "synapse-isolation %s\n", v)
			return nil
		},
	}
}
