package protocol

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

const goodSelfcheck = `{"uid":65534,"gid":65534,"groups":[65534],"cap_eff":"0000000000000000","no_new_privs":1,"seccomp":2,` +
	`"cgroup_version":1,"memory_max":536870912,"swap_max":0,"pids_max":64,"cpu_max":"100000 100000","nofile_soft":64,` +
	`"nofile_hard":64,"core_soft":0,"core_hard":0,"tmp_options":"rw,nosuid,nodev,noexec,relatime,size=32768k",` +
	`"tmp_bytes":33554432,"tmp_mode":"1777","tmp_writable":true,"root_read_only":true,"interfaces":["lo"],` +
	`"dev_shm_writable":false,"docker_socket":false,"env_keys":["HOME","HOSTNAME","PATH"],"took_us":120}`

func TestDecodeHello(t *testing.T) {
	h, err := DecodeHello([]byte(`{"v":8,"selfcheck":` + goodSelfcheck + `}`))
	assert.NilError(t, err)
	assert.Equal(t, h.V, 8)
	assert.Equal(t, h.Selfcheck.MemoryMax, int64(536870912))
	assert.Equal(t, h.Selfcheck.TmpMode, "1777")
}

func TestDecodeHelloRejects(t *testing.T) {
	for in, want := range map[string]string{
		``:                         `hello: want a JSON object with "v" and "selfcheck"`,
		`null`:                     `hello: want a JSON object with "v" and "selfcheck"`,
		`hello`:                    `hello: want a JSON object with "v" and "selfcheck"`,
		`{"v":8}`:                  `hello: missing field "selfcheck"`,
		`{"v":8,"selfcheck":null}`: `hello: missing field "selfcheck"`,
		`{"v":1,"ok":true,"result":3,"output":"","output_truncated":false,"output_bytes":0}`: "hello: the runner speaks protocol version 1, want 8",
		`{"v":2,"selfcheck":` + goodSelfcheck + `}`:                                          "hello: the runner speaks protocol version 2, want 8",
		`{"selfcheck":` + goodSelfcheck + `}`:                                                "hello: protocol version 0, want 8",
		`{"v":8,"selfcheck":` + goodSelfcheck + `,"x":1}`:                                    `hello: unknown field "x" (want "v" and "selfcheck" only)`,
		`{"v":8,"selfcheck":{"uid":0,"root":true}}`:                                          `hello: unknown field "root" in "selfcheck"`,
		`{"v":8,"selfcheck":` + goodSelfcheck + `}{"v":8}`:                                   "hello: trailing data after the JSON value",
		"{\"v\":8,\"selfcheck\":{\"cap_eff\":\"\xff\"}}":                                     "hello: invalid UTF-8 at offset 31",
		`{"v":8,"selfcheck":{"env_keys":["` + strings.Repeat("K", 16<<10) + `"]}}`:           "hello: larger than 16384 bytes",
	} {
		_, err := DecodeHello([]byte(in))
		assert.Check(t, err != nil && err.Error() == want, "%.60q: got %v, want %s", in, err, want)
	}
}

// TestDecodeHelloRefusesDuplicates: a key twice is refused at every depth,
// naming it, where encoding/json alone keeps the last one silently.
func TestDecodeHelloRefusesDuplicates(t *testing.T) {
	sc := strings.TrimSuffix(goodSelfcheck, "}")
	for in, want := range map[string]string{
		`{"v":8,"v":8,"selfcheck":` + goodSelfcheck + `}`:                             `hello: duplicate field "v"`,
		`{"v":8,"selfcheck":` + goodSelfcheck + `,"selfcheck":` + goodSelfcheck + `}`: `hello: duplicate field "selfcheck"`,
		`{"v":8,"selfcheck":` + sc + `,"uid":0}}`:                                     `hello: duplicate field "uid" in "selfcheck"`,
		`{"v":8,"selfcheck":` + sc + `,"proc_probes":{"mem":13,"mem":0}}}`:            `hello: duplicate field "mem" in "selfcheck.proc_probes"`,
		// encoding/json would take "UID" for "uid", and keep the last.
		`{"v":8,"selfcheck":` + sc + `,"UID":0}}`: `hello: unknown field "UID" in "selfcheck"`,
	} {
		_, err := DecodeHello([]byte(in))
		assert.Check(t, err != nil && err.Error() == want, "%.60q: got %v, want %s", in, err, want)
	}
}

func FuzzDecodeHello(f *testing.F) {
	for _, s := range []string{`{"v":8,"selfcheck":` + goodSelfcheck + `}`, `{"v":1}`, `{"v":8,"selfcheck":{}}`, `[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := DecodeHello(b)
		if err != nil {
			return
		}
		assert.Assert(t, len(b) <= 16<<10)
		assert.Equal(t, h.V, Version)
		assert.Assert(t, h.Selfcheck != nil)
	})
}
