package dockerargs

import (
	"fmt"
	"path"
	"strings"
)

// parsed is a `docker run` command line split the way docker's flag parser
// (pflag, with interspersed arguments off) splits it.
type parsed struct {
	values  map[string][]string // canonical flag name -> values in order
	unknown []string            // flags docker would reject or that Audit does not know
	image   string
	args    []string
	// allowRuntimes are the runtimes the auditor accepts (AuditOptions).
	allowRuntimes []string
	// seccomp are the profile files as the caller read them (AuditOptions).
	seccomp map[string]ProfileFile
}

// last returns the value docker uses for a single-valued flag: the last one.
func (p *parsed) last(name string) (string, bool) {
	v := p.values[name]
	if len(v) == 0 {
		return "", false
	}
	return v[len(v)-1], true
}

// parseRun finds the `run` subcommand, after the client binary (cli, or
// a path to it; empty means docker) and its global options, and parses its
// flags.
func parseRun(argv []string, cli string) (*parsed, error) {
	if cli == "" {
		cli = DefaultCLI
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("empty argv")
	}
	if argv[0] != cli && path.Base(argv[0]) != cli {
		return nil, fmt.Errorf("the first word is %q, not the client %s (name another client with --cli)", argv[0], cli)
	}
	i := 1
	// Global options before the subcommand.
	for i < len(argv) && strings.HasPrefix(argv[i], "-") {
		n, err := skipFlag(argv[i:], globalFlags, globalShorthands)
		if err != nil {
			return nil, err
		}
		i += n
	}
	switch {
	case i < len(argv) && argv[i] == "run":
		i++
	case i+1 < len(argv) && argv[i] == "container" && argv[i+1] == "run":
		i += 2
	default:
		return nil, fmt.Errorf("no run subcommand")
	}
	p := &parsed{values: map[string][]string{}}
	for i < len(argv) {
		a := argv[i]
		if a == "--" {
			i++
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		n, err := p.flag(argv[i:])
		if err != nil {
			return nil, err
		}
		i += n
	}
	if i >= len(argv) {
		return nil, fmt.Errorf("no image: docker run needs an image argument")
	}
	p.image, p.args = argv[i], argv[i+1:]
	return p, nil
}

// flag consumes one flag argument (and its value argument if separate),
// returning how many arguments it used.
func (p *parsed) flag(args []string) (int, error) {
	if strings.HasPrefix(args[0], "--") {
		return p.longFlag(args)
	}
	return p.shortFlags(args)
}

// longFlag consumes --name, --name=value or --name value.
func (p *parsed) longFlag(args []string) (int, error) {
	name, val, hasVal := strings.Cut(args[0][2:], "=")
	if c, ok := aliases[name]; ok {
		name = c
	}
	kind, ok := runFlags[name]
	if !ok {
		p.unknown = append(p.unknown, "--"+name)
		if hasVal || len(args) < 2 || strings.HasPrefix(args[1], "-") {
			return 1, nil
		}
		// An unknown flag's arity is unknown; a following non-flag is
		// taken as its value, which keeps the image position honest
		// only if the next token is not the image. Either way the
		// unknown flag alone already fails the audit.
		return 2, nil
	}
	switch {
	case kind == boolFlag && !hasVal:
		p.add(name, "true")
		return 1, nil
	case hasVal:
		p.add(name, val)
		return 1, nil
	case len(args) < 2:
		return 0, fmt.Errorf("flag needs an argument: --%s", name)
	}
	p.add(name, args[1])
	return 2, nil
}

// shortFlags consumes one or more shorthands: -it, -v /a:/b, -itv/a:/b, -e=X.
func (p *parsed) shortFlags(args []string) (int, error) {
	s := args[0][1:]
	for j := 0; j < len(s); j++ {
		name, ok := shorthands[s[j]]
		if !ok {
			p.unknown = append(p.unknown, "-"+s[j:j+1])
			continue
		}
		if runFlags[name] == boolFlag {
			if j+1 < len(s) && s[j+1] == '=' {
				p.add(name, s[j+2:])
				return 1, nil
			}
			p.add(name, "true")
			continue
		}
		rest := strings.TrimPrefix(s[j+1:], "=")
		if j+1 < len(s) {
			p.add(name, rest)
			return 1, nil
		}
		if len(args) < 2 {
			return 0, fmt.Errorf("flag needs an argument: -%c", s[j])
		}
		p.add(name, args[1])
		return 2, nil
	}
	return 1, nil
}

func (p *parsed) add(name, val string) { p.values[name] = append(p.values[name], val) }

// skipFlag consumes one global option; unknown global options are errors
// because their arity decides where `run` is.
func skipFlag(args []string, long map[string]flagKind, short map[byte]string) (int, error) {
	a := args[0]
	var name string
	if strings.HasPrefix(a, "--") {
		n, _, hasVal := strings.Cut(a[2:], "=")
		kind, ok := long[n]
		if !ok {
			return 0, fmt.Errorf("unknown docker option %s", a)
		}
		if hasVal || kind == boolFlag {
			return 1, nil
		}
		name = n
	} else {
		if len(a) < 2 {
			return 0, fmt.Errorf("unknown docker option %s", a)
		}
		n, ok := short[a[1]]
		if !ok {
			return 0, fmt.Errorf("unknown docker option %s", a)
		}
		if long[n] == boolFlag || len(a) > 2 {
			return 1, nil
		}
		name = n
	}
	if len(args) < 2 {
		return 0, fmt.Errorf("docker option --%s needs an argument", name)
	}
	return 2, nil
}
