package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
)

func formatFlag() cli.Flag {
	return &cli.StringFlag{Name: "format", Value: "json", Usage: "output `FORMAT`: json (one object) or text (for humans)"}
}

func outputFormat(c *cli.Context) (string, error) { return formatChoice(c, "json", "text") }

// printResult writes the result to stdout and returns the error that
// carries its exit status (nil for ok).
func printResult(c *cli.Context, format string, res isolation.Result) error {
	w := c.App.Writer
	if format == "json" {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res); err != nil {
			return err
		}
		_, _ = w.Write(buf.Bytes())
	} else {
		writeText(w, res)
	}
	if res.ExitCode != 0 {
		return &silentError{code: res.ExitCode}
	}
	return nil
}

// writeText prints for a terminal: the program's output, then its value or
// error. Control characters from the program are escaped so output cannot
// drive the terminal.
func writeText(w io.Writer, res isolation.Result) {
	if res.Output != "" {
		fmt.Fprint(w, escapeControl(res.Output))
		if !strings.HasSuffix(res.Output, "\n") {
			fmt.Fprintln(w)
		}
	}
	if res.OutputTruncated {
		fmt.Fprintf(w, "[output truncated: %d bytes in all, first %d shown]\n", res.OutputBytes, len(res.Output))
	}
	if res.Error != nil {
		pos := ""
		if res.Error.Line > 0 {
			pos = fmt.Sprintf(" (line %d, col %d)", res.Error.Line, res.Error.Col)
		}
		if res.Error.Type == string(res.Verdict) {
			// A run failure: its message already names it.
			fmt.Fprintf(w, "%s\n", escapeControl(res.Error.Message))
			return
		}
		fmt.Fprintf(w, "%s: %s%s\n", res.Error.Type, escapeControl(res.Error.Message), pos)
		return
	}
	if string(res.Result) != "null" && res.Result != nil {
		val := string(res.Result)
		if res.ResultRepr {
			_ = json.Unmarshal(res.Result, &val)
		}
		fmt.Fprintf(w, "=> %s (%s)\n", escapeControl(val), res.ResultType)
	}
}

// escapeControl escapes every control character except newline and tab,
// and the Unicode bidirectional overrides that can disguise text.
func escapeControl(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0xfeff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
