package protocol

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/limits"
)

func TestDecodeResponse(t *testing.T) {
	r, err := DecodeResponse([]byte(`{"v":8,"ok":true,"result":123456789012345678901234567890,"result_type":"int","output":"hi\n","output_truncated":false,"output_bytes":3}`))
	assert.NilError(t, err)
	assert.Equal(t, string(r.Result), "123456789012345678901234567890")
	assert.Equal(t, r.Output, "hi\n")
}

func TestDecodeResponseRejects(t *testing.T) {
	ok := `{"v":8,"ok":true,"result":3,"output":"","output_truncated":false,"output_bytes":0}`
	for in, want := range map[string]string{
		``:                  "response: empty",
		`null`:              "response: want a JSON object",
		`[1]`:               "response: want a JSON object",
		ok + ok:             "response: trailing data after the JSON value",
		ok + "\nWARNING: x": "response: trailing data after the JSON value",
		`{"v":8,"ok":true,"output":"","output_bytes":0,"extra":1}`:                          `response: unknown field "extra"`,
		`{"v":1,"ok":true,"output":"","output_bytes":0}`:                                    "response: protocol version 1, want 8",
		`{"v":8,"ok":true,"output":"abc","output_bytes":-1}`:                                "response: negative output_bytes -1 or stderr_bytes 0",
		`{"v":8,"ok":true,"output":"abc","output_bytes":65537}`:                             "response: output_truncated=false disagrees with output_bytes 65537 and its share of 65536 bytes of the 65536 byte cap",
		`{"v":8,"ok":true,"output":"abc","output_bytes":3,"output_truncated":true}`:         "response: output_truncated=true disagrees with output_bytes 3 and its share of 3 bytes of the 65536 byte cap",
		`{"v":8,"ok":false,"output":"","output_bytes":0}`:                                   "response: not ok and no error",
		`{"v":8,"ok":true,"output":"","output_bytes":0,"error":{"type":"runtime"}}`:         "response: ok with an error",
		`{"v":8,"ok":false,"output":"","output_bytes":0,"error":{"message":"x"}}`:           "response: error without a type",
		"{\"v\":3,\"ok\":true,\"output\":\"\xff\",\"output_bytes\":1}":                      "response: invalid UTF-8 at offset 27",
		`{"v":8,"ok":true,"output":"` + strings.Repeat("x", limits.MaxOutputBytes+1) + `"}`: "response: output and stderr are 65537 bytes, over the 65536 byte cap",
		`{"v":8,"ok":true,"result":"` + strings.Repeat("x", limits.MaxResponseBytes) + `"}`: "response: larger than 1048576 bytes",
		// Output and stderr share the cap: a stream within its half is whole.
		`{"v":8,"ok":true,"output":"abc","output_bytes":3,"stderr":"x","stderr_bytes":99999}`:                                                                                   "response: stderr_truncated=false disagrees with stderr_bytes 99999 and its share of 65533 bytes of the 65536 byte cap",
		`{"v":8,"ok":true,"output":"abc","output_bytes":99999,"output_truncated":true,"stderr":"x","stderr_bytes":99999,"stderr_truncated":true}`:                               "",
		`{"v":8,"ok":true,"output":"` + strings.Repeat("x", 40000) + `","output_bytes":99999,"output_truncated":true,"stderr":"","stderr_bytes":99999,"stderr_truncated":true}`: "response: output is 40000 bytes, over its share of 32768 bytes of the 65536 byte cap",
	} {
		if want == "" {
			_, err := DecodeResponse([]byte(in))
			assert.Check(t, err, "%.60q", in)
			continue
		}
		_, err := DecodeResponse([]byte(in))
		assert.Check(t, err != nil && err.Error() == want, "%.60q: got %v, want %s", in, err, want)
	}
}

// TestDecodeRefusesDuplicates: every frame (and a batch line:
// batchline.TestDecodeRefusesDuplicates) refuses a key twice, at the top
// and in every object inside, naming it, where encoding/json alone keeps
// the last one silently (a response not ok, then ok, would be ok).
func TestDecodeRefusesDuplicates(t *testing.T) {
	const head = `{"v":8,"ok":false,"result":null,"output":"","output_truncated":false,"output_bytes":0,`
	const errObj = `"error":{"type":"runtime","message":"m"}`
	for in, want := range map[string]string{
		head + errObj + `,"ok":true}`:                                             `response: duplicate field "ok"`,
		head + `"error":{"type":"runtime","message":"m","type":"x"}}`:             `response: duplicate field "type" in "error"`,
		head + errObj + `,"usage":{"cpu_us":1,"memory_peak_bytes":2,"cpu_us":0}}`: `response: duplicate field "cpu_us" in "usage"`,
		head + errObj + `,"exit":{"code":1,"code":0}}`:                            `response: duplicate field "code" in "exit"`,
		head + errObj + `,"exit":{"code":1,"signal":"x","signal":""}}`:            `response: duplicate field "signal" in "exit"`,
		`{"v":8,"ok":true,"result":[{"a":1,"a":2}],"output":"","output_bytes":0}`: `response: duplicate field "a" in "result[0]"`,
		// An escaped key is the key it spells.
		head + errObj + `,"o\u006b":true}`:                                              `response: duplicate field "ok"`,
		`{"v":8,"ok":true,"result":{"a\"\\":1,"a\"\\":2},"output":"","output_bytes":0}`: `response: duplicate field "a\"\\" in "result"`,
		// encoding/json would take "OK" for "ok", and keep the last.
		head + errObj + `,"OK":true}`:                               `response: unknown field "OK"`,
		head + `"error":{"type":"runtime","message":"m","code":1}}`: `response: unknown field "code" in "error" (want "type", "message", "line" and "col" only)`,
	} {
		_, err := DecodeResponse([]byte(in))
		assert.Check(t, err != nil && err.Error() == want, "%.60q: got %v, want %s", in, err, want)
	}
	_, err := DecodeRequest([]byte(`{"source":"1","source":"2"}`), true)
	assert.Error(t, err, `request: duplicate field "source"`)
	// A result of any size and depth (within encoding/json's) still decodes.
	r, err := DecodeResponse([]byte(`{"v":8,"ok":true,"result":{"a":[1e999,{"b":{}}],"c":` + strings.Repeat("9", 400) + `},"output":"","output_bytes":0}`))
	assert.NilError(t, err)
	assert.Equal(t, string(r.Result)[:20], `{"a":[1e999,{"b":{}}`)
}

func FuzzDecodeResponse(f *testing.F) {
	for _, s := range []string{
		`{"v":8,"ok":true,"result":3,"output":"","output_truncated":false,"output_bytes":0}`,
		`{"v":8,"ok":false,"output":"x","output_truncated":true,"output_bytes":9,"error":{"type":"runtime","message":"m","line":1,"col":2}}`,
		`{"v":8,"ok":true,"result":null,"output":"","output_bytes":0,"exit":{"code":0}}`,
		`{"v":8}{"v":8}`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeResponse(b)
		if err != nil {
			return
		}
		assert.Assert(t, len(r.Output) <= limits.MaxOutputBytes)
		assert.Assert(t, r.OK == (r.Error == nil))
		assert.Assert(t, r.OutputTruncated == (r.OutputBytes > limits.MaxOutputBytes))
	})
}
