package limits

import (
	"slices"
	"strings"
)

// BoundariesMarkdown renders the boundary table as the README shows it:
// each boundary with its value and argv, how the audit judges a captured
// argv, and how the runner's hello proves it under runc and under gVisor.
func BoundariesMarkdown() string {
	var b strings.Builder
	b.WriteString("| boundary | value, argv | how `audit` judges it | how the hello proves it under runc (`doctor` check: what it shows) | under gVisor (runsc) |\n")
	b.WriteString("|---|---|---|---|---|\n")
	for _, r := range Boundaries {
		value := r.Value
		if r.Argv != nil {
			value += ": `" + strings.Join(r.Argv, " ") + "`"
		}
		audit := r.Audit
		if audit == "" {
			audit = "(not in the argv)"
		}
		if f, ok := r.Under[Runsc]; ok {
			value += "; under runsc `" + strings.Join(f.Argv, " ") + "`"
			audit += "; under runsc " + f.Audit
		}
		runc, runsc := helloCell(r.Hello[Runc]), helloCell(r.Hello[Runsc])
		if runsc != "" && slices.Equal(r.Hello[Runc], r.Hello[Runsc]) {
			runsc = "as under runc"
		}
		for _, cell := range []string{r.Name, value, audit, runc, runsc} {
			b.WriteString("| " + strings.ReplaceAll(cell, "|", `\|`) + " ")
		}
		b.WriteString("|\n")
	}
	return b.String()
}

func helloCell(ps []Proof) string {
	var hello []string
	for _, p := range ps {
		hello = append(hello, p.Check+": "+p.Shows)
	}
	return strings.Join(hello, "; ")
}
