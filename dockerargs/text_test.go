package dockerargs

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

func TestSplitShell(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"docker run --rm x", []string{"docker", "run", "--rm", "x"}},
		{"  a\t b  \n", []string{"a", "b"}},
		{`a 'b c' "d e" f\ g`, []string{"a", "b c", "d e", "f g"}},
		{`'it'"'"'s'`, []string{"it's"}},
		{`"a\"b\\c\$d\e"`, []string{`a"b\c$d\e`}},
		{"'multi\nline'", []string{"multi\nline"}},
		{"a \\\nb", []string{"a", "b"}},
		{`'' ""`, []string{"", ""}},
		{`'$HOME *.go {a,b} ~ # ; | >'`, []string{"$HOME *.go {a,b} ~ # ; | >"}},
		{"a=b c~d e#f", []string{"a=b", "c~d", "e#f"}},
		{`--label=a=b --tmpfs /tmp:rw,size=32m,mode=1777`, []string{"--label=a=b", "--tmpfs", "/tmp:rw,size=32m,mode=1777"}},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := splitShell(tc.in)
			assert.NilError(t, err)
			assert.DeepEqual(t, got, tc.want)
		})
	}
}

func TestSplitShellRefusesWhatAShellWouldExpand(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"docker run $IMAGE", "docker run ${X}", "a `id`", `"$HOME"`, "\"`id`\"", "a *", "a ?", "a [ab]",
		"a {b,c}", "~/x", "a # comment", "a > out", "a < in", "a | b", "a & b", "a; b", "(a)", "a\nb",
		"'unterminated", `"unterminated`, `a\`,
	} {
		t.Run(in, func(t *testing.T) {
			_, err := splitShell(in)
			assert.Assert(t, err != nil)
		})
	}
}

func TestShellQuoteRoundTripsThroughSplitShell(t *testing.T) {
	t.Parallel()
	argv := []string{"docker", "it's", `"q"`, "$HOME", "`x`", "a b", "", "*", "~", "#", "{a}", "new\nline", "tab\t", `back\slash`, "é"}
	got, err := splitShell(shellJoin(argv))
	assert.NilError(t, err)
	assert.DeepEqual(t, got, argv)
}

func TestReadArgvForms(t *testing.T) {
	t.Parallel()
	want := []string{"docker", "run", "--rm", "a b"}
	for _, tc := range []struct{ name, in, form string }{
		{"json", `["docker","run","--rm","a b"]`, "auto"},
		{"json spaced", "  [\"docker\", \"run\", \"--rm\", \"a b\"]\n", "auto"},
		{"lines", "docker\nrun\n--rm\na b\n", "auto"},
		{"shell", "docker run --rm 'a b'\n", "auto"},
		{"shell forced", "docker run --rm 'a b'", "shell"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadText([]byte(tc.in), tc.form)
			assert.NilError(t, err)
			assert.DeepEqual(t, got, want)
		})
	}
	for _, in := range []string{"", "   \n", "[]", "[1,2]", "{}"} {
		_, err := ReadText([]byte(in), "auto")
		assert.Assert(t, err != nil, "%q", in)
	}
	_, err := ReadText([]byte(strings.Repeat("x\n", 3)), "yaml")
	assert.ErrorContains(t, err, `unknown input form "yaml"`)
}

func TestTextForms(t *testing.T) {
	t.Parallel()
	argv := []string{"docker", "run", "--label=a<b&c", "it's"}
	for form, want := range map[string]string{
		"json":  `["docker","run","--label=a<b&c","it's"]`,
		"lines": "docker\nrun\n--label=a<b&c\nit's",
		"shell": `docker run '--label=a<b&c' 'it'"'"'s'`,
	} {
		got, err := Text(argv, form)
		assert.NilError(t, err)
		assert.Equal(t, got, want, form)
		back, err := ReadText([]byte(got), "auto")
		assert.NilError(t, err)
		assert.DeepEqual(t, back, argv)
	}
	_, err := Text(argv, "yaml")
	assert.ErrorContains(t, err, `unknown argv form "yaml"`)
}
