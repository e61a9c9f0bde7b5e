package protocol

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// TestDecodeJudgedResponse: a judge's response is held to its own rules:
// verdicts the runner knows, each agreeing with its error and match, a
// compile error exactly with a failed compile step and then no tests,
// and every test's and the compiler's kept output within the one cap.
func TestDecodeJudgedResponse(t *testing.T) {
	const top = `{"v":8,"ok":true,"result":null,"output":"","output_bytes":0`
	test := func(fields string) string {
		return `{"name":"1","output":"","output_bytes":0,"stderr":"","stderr_bytes":0,"wall_us":1` + fields + `}`
	}
	good := top + `,"tests":[` + test(`,"verdict":"ok","match":true`) + `,` + test(`,"verdict":"wrong_answer","match":false,"line":2`) + `,` +
		test(`,"verdict":"timeout","error":{"type":"timeout","message":"stopped"},"stopped":true`) + `,` +
		test(`,"verdict":"program_error","not_run":true,"error":{"type":"internal","message":"not run: the interactor ended before it"}`) + `]}`
	r, err := DecodeResponse([]byte(good))
	assert.NilError(t, err)
	assert.Equal(t, len(r.Tests), 4)
	assert.Check(t, r.Tests[2].Stopped)
	assert.Equal(t, r.Tests[1].Line, int64(2))

	compile := `,"compile":{"output":"","output_bytes":0,"stderr":"e","stderr_bytes":1,"wall_us":1,"error":{"type":"exec","message":"exit status 1"}}`
	_, err = DecodeResponse([]byte(`{"v":8,"ok":false,"result":null,"output":"","output_bytes":0,"error":{"type":"compile","message":"x"}` + compile + `}`))
	assert.NilError(t, err)

	big := strings.Repeat("x", 40000)
	for in, want := range map[string]string{
		top + `,"tests":[` + test(`,"verdict":"passed"`) + `]}`:                                                             `response: test "1": verdict "passed" is none of`,
		top + `,"tests":[` + test(`,"verdict":"ok","match":false`) + `]}`:                                                   `response: test "1": verdict ok disagrees with its match`,
		top + `,"tests":[` + test(`,"verdict":"wrong_answer"`) + `]}`:                                                       `response: test "1": verdict wrong_answer disagrees with its match`,
		top + `,"tests":[` + test(`,"verdict":"ok","error":{"type":"exec","message":"x"}`) + `]}`:                           `response: test "1": verdict ok disagrees with its error`,
		top + `,"tests":[` + test(`,"verdict":"program_error"`) + `]}`:                                                      `response: test "1": verdict program_error disagrees with its error`,
		top + `,"tests":[` + test(`,"verdict":"ok","output_dropped":true`) + `]}`:                                           `response: test "1": output dropped, yet kept or not matched`,
		top + `,"tests":[` + test(`,"verdict":"ok","match":true,"stopped":true`) + `]}`:                                     `response: test "1": stopped at the other side's end, yet ok`,
		top + `,"tests":[` + test(`,"verdict":"program_error","not_run":true,"error":{"type":"exec","message":"x"}`) + `]}`: `response: test "1": not run, yet program_error`,
		top + `,"tests":[` + strings.Replace(test(`,"verdict":"ok"`), `"wall_us":1`, `"wall_us":-1`, 1) + `]}`:              `response: test "1": a negative count`,
		top + `,"tests":[` + strings.Replace(test(`,"verdict":"ok"`), `"output":""`, `"output":"`+big+`"`, 1) + `,` +
			strings.Replace(test(`,"verdict":"ok"`), `"output":""`, `"output":"`+big+`"`, 1) + `]}`: "response: output kept in all is 80000 bytes, over the 65536 byte cap",
		top + compile + `}`: "response: a compile error disagrees with the compile step",
		`{"v":8,"ok":false,"result":null,"output":"","output_bytes":0,"error":{"type":"compile","message":"x"}}`: "response: a compile error without a compile step",
		`{"v":8,"ok":false,"result":null,"output":"","output_bytes":0,"error":{"type":"compile","message":"x"}` + compile +
			`,"tests":[` + test(`,"verdict":"ok"`) + `]}`: "response: tests run after a failed compile",
	} {
		_, err := DecodeResponse([]byte(in))
		assert.Check(t, err != nil && strings.HasPrefix(err.Error(), want), "%.80q: got %v, want %s", in, err, want)
	}
}
