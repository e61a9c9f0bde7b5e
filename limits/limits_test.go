package limits

import (
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Bytes
	}{
		{"256m", 256 << 20}, {"1g", 1 << 30}, {"536870912", 512 << 20}, {"64m", 64 << 20},
		{"65536k", 64 << 20}, {"512M", 512 << 20}, {"2G", 2 << 30}, {"67108864b", 64 << 20},
		{"1gb", 1 << 30}, {"1GiB", 1 << 30}, {"1.5g", 3 << 29}, {"512 m", 512 << 20}, {"512mb", 512 << 20},
		{"1t", 1 << 40}, {"0.5k", 512}, {"0", 0}, {"100 b", 100},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseBytes(tc.in)
			assert.NilError(t, err)
			assert.Equal(t, got, tc.want)
		})
	}
}

func TestParseBytesRejects(t *testing.T) {
	const grammar = "must be a number with an optional unit k, m, g, t or p, like 512m or 1GiB"
	for _, tc := range []struct{ in, msg string }{
		{"", grammar}, {"-1", grammar}, {"m", grammar}, {" 512m", grammar}, {"512  m", grammar},
		{"1.3k", "must be a whole number of bytes"}, {"1.5", "must be a whole number of bytes"},
		{"5ib", grammar}, {"1e9", grammar}, {"1.", grammar}, {".5g", grammar}, {"1.2.3", grammar},
		{"0x10", grammar}, {"512x", grammar}, {"99999999999999999999", "is out of range"},
		{"9999999p", "is out of range"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, err := ParseBytes(tc.in)
			assert.Error(t, err, tc.msg+` (got "`+tc.in+`")`)
		})
	}
}

func TestBytesString(t *testing.T) {
	for n, want := range map[Bytes]string{512 << 20: "512m", 1 << 30: "1g", 64<<20 + 1: "67108865", 65 << 10: "65k", 0: "0"} {
		t.Run(want, func(t *testing.T) {
			assert.Equal(t, n.String(), want)
			back, err := ParseBytes(want)
			assert.NilError(t, err)
			assert.Equal(t, back, n)
		})
	}
}

func TestBytesIsAFlagValue(t *testing.T) {
	b := DefaultMemory
	assert.NilError(t, b.Set("1GiB"))
	assert.Equal(t, b, Bytes(1<<30))
	assert.ErrorContains(t, b.Set("lots"), "must be a number")
	assert.Equal(t, b, Bytes(1<<30), "a failed Set keeps the value")
	assert.Error(t, b.Set("0"), `must be greater than 0 (got "0")`)
}

func TestParseTimeout(t *testing.T) {
	d, err := ParseTimeout("1m30s")
	assert.NilError(t, err)
	assert.Equal(t, d, 90*time.Second)
	for _, in := range []string{"10", "soon", ""} {
		_, err := ParseTimeout(in)
		assert.Error(t, err, (&FieldError{Field: "timeout", Value: in, Msg: "must be a duration like 10s or 1m30s"}).Error())
	}
	for _, in := range []string{"0s", "-1s"} {
		_, err := ParseTimeout(in)
		assert.Error(t, err, `timeout: must be greater than 0 (got "`+in+`")`)
	}
}

func TestResolve(t *testing.T) {
	c, err := Config{}.Resolve()
	assert.NilError(t, err)
	assert.Equal(t, c.Config, Config{Memory: DefaultMemory, Timeout: DefaultTimeout})
	assert.Check(t, c.Valid() && !(Resolved{Config: c.Config}).Valid(), "only Resolve makes a valid Resolved")
	c, err = Config{Timeout: 2 * time.Second, CPUTime: 2 * time.Second}.Resolve()
	assert.NilError(t, err)
	assert.Equal(t, c.CPUTime, 2*time.Second, "up to the timeout itself")
	_, err = Config{Timeout: MinTimeout}.Resolve()
	assert.NilError(t, err, "the shortest timeout a container start allows")
	assert.NilError(t, CheckWallClock(time.Millisecond), "eval and the runner need no start")
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{Memory: 63 << 20}, `memory: must be at least 64m (got "63m")`},
		{Config{Memory: 2 << 40}, `memory: must be at most 1024g (got "2048g")`},
		{Config{Memory: -1}, `memory: must be at least 64m (got "-1")`},
		{Config{Timeout: -time.Second}, `timeout: must be greater than 0 (got "-1s")`},
		{Config{Timeout: 11 * time.Minute}, `timeout: must be at most 10m0s (got "11m0s")`},
		{Config{Timeout: 999 * time.Millisecond}, `timeout: must be at least 1s (got "999ms")`},
		{Config{Timeout: time.Millisecond}, `timeout: must be at least 1s (got "1ms")`},
		{Config{CPUTime: 11 * time.Second}, `cpu-time: must be at most the timeout (10s) (got "11s")`},
		{Config{CPUTime: 9 * time.Millisecond}, `cpu-time: must be at least 10ms (got "9ms")`},
		{Config{CPUTime: -time.Second}, `cpu-time: must be at least 10ms (got "-1s")`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			_, err := tc.c.Resolve()
			assert.Error(t, err, tc.want)
		})
	}
}

func TestCheckImageID(t *testing.T) {
	good := "sha256:" + strings.Repeat("ab", 32)
	assert.NilError(t, CheckImageID(good))
	for _, in := range []string{
		"", "python:latest", "sha256:abc123", "abababababab", strings.Repeat("ab", 32),
		"sha256:" + strings.Repeat("AB", 32), "busybox@" + good, "sha256:" + strings.Repeat("ab", 32) + "0",
		"sha512:" + strings.Repeat("ab", 32), "sha256:" + strings.Repeat("gz", 32),
	} {
		t.Run(in, func(t *testing.T) {
			err := CheckImageID(in)
			assert.Check(t, err != nil)
			assert.Check(t, is.Contains(err.Error(), "image: "))
		})
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"ab", "synapse-iso-1", "a.b_c-d", "0x"} {
		assert.NilError(t, CheckName("name", ok), ok)
	}
	for in, want := range map[string]string{
		"":     "name: must not be empty",
		"a":    `name: must match [a-zA-Z0-9][a-zA-Z0-9_.-]+ (got "a")`,
		"-rm":  `name: must match [a-zA-Z0-9][a-zA-Z0-9_.-]+ (got "-rm")`,
		"a b":  `name: must match [a-zA-Z0-9][a-zA-Z0-9_.-]+ (got "a b")`,
		"_ab":  `name: must match [a-zA-Z0-9][a-zA-Z0-9_.-]+ (got "_ab")`,
		"x;y":  `name: must match [a-zA-Z0-9][a-zA-Z0-9_.-]+ (got "x;y")`,
		"é1":   `name: must match [a-zA-Z0-9][a-zA-Z0-9_.-]+ (got "é1")`,
		"ab\n": `name: must match [a-zA-Z0-9][a-zA-Z0-9_.-]+ (got "ab\n")`,
	} {
		t.Run(in, func(t *testing.T) { assert.Error(t, CheckName("name", in), want) })
	}
}

func TestFlagError(t *testing.T) {
	e := &FieldError{Field: "memory", Value: "63m", Msg: "must be at least 64m"}
	assert.Equal(t, e.Error(), `memory: must be at least 64m (got "63m")`)
	assert.Equal(t, e.FlagError(), `--memory: must be at least 64m (got "63m")`)
}

func TestDurationFlagValue(t *testing.T) {
	var d Duration
	assert.NilError(t, d.Set("1m30s"))
	assert.Equal(t, time.Duration(d), 90*time.Second)
	assert.Equal(t, d.String(), "1m30s")
	assert.Error(t, d.Set("ten"), `must be a duration like 10s or 1m30s (got "ten")`)
	assert.Error(t, d.Set("0s"), `must be greater than 0 (got "0s")`)
	assert.Equal(t, time.Duration(d), 90*time.Second, "a refused value leaves the flag as it was")
}
