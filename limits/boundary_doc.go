package limits

import "strings"

// BoundariesMarkdown renders the boundary table as the README shows it:
// each boundary with its value and argv, how the audit judges a captured
// argv, and how the runner's hello proves it under runc.
func BoundariesMarkdown() string {
	var b strings.Builder
	b.WriteString("| boundary | value, argv | how `audit` judges it | how the hello proves it under runc (`doctor` check: what it shows) |\n")
	b.WriteString("|---|---|---|---|\n")
	for _, r := range Boundaries {
		value := r.Value
		if r.Argv != nil {
			value += ": `" + strings.Join(r.Argv, " ") + "`"
		}
		audit := r.Audit
		if audit == "" {
			audit = "(not in the argv)"
		}
		var hello []string
		for _, p := range r.Hello[Runc] {
			hello = append(hello, p.Check+": "+p.Shows)
		}
		for _, cell := range []string{r.Name, value, audit, strings.Join(hello, "; ")} {
			b.WriteString("| " + strings.ReplaceAll(cell, "|", `\|`) + " ")
		}
		b.WriteString("|\n")
	}
	return b.String()
}
