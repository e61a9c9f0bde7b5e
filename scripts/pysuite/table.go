package main

import (
	"fmt"
	"io"
	"strings"
)

func printTable(w io.Writer, rows []row) {
	fmt.Fprintln(w, "| module | passed (engine's default) | passed (policy) | the rest (default; policy) | tests that differ |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, r := range rows {
		diffs := "none"
		if len(r.diffs) > 0 {
			diffs = strings.Join(r.diffs, "<br>")
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s; %s | %s |\n", r.module, r.passedDefault, r.passedPolicy,
			r.notPassedDefault, r.notPassedPolicy, diffs)
	}
}
