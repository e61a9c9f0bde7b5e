package protocol

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"gotest.tools/v3/assert"
)

// TestCheckFilesAsAHostileRunnerWouldLie: the host writes collected files
// by name, so a response's files are held to what was asked and to
// themselves: plain names, bytes as many and as hashed as they say.
func TestCheckFilesAsAHostileRunnerWouldLie(t *testing.T) {
	data := []byte("plot")
	sum := sha256.Sum256(data)
	good := File{Bytes: 4, SHA256: hex.EncodeToString(sum[:]), Data: data}
	ok := Response{Files: map[string]File{"plot.png": good, "x.csv": {Error: "a symbolic link: not followed"}}}
	assert.NilError(t, CheckFiles(ok, true))
	assert.NilError(t, CheckFiles(Response{}, false))
	for name, tc := range map[string]struct {
		files map[string]File
		asked bool
		want  string
	}{
		"not asked":  {map[string]File{"plot.png": good}, false, "response: files, where none were asked for"},
		"a path":     {map[string]File{"../../etc/cron.d/x": good}, true, `response: file name "../../etc/cron.d/x": must be a plain name, without /`},
		"dotdot":     {map[string]File{"..": good}, true, `response: file name "..": must be a plain name, without ..`},
		"short":      {map[string]File{"a": {Bytes: 9, SHA256: good.SHA256, Data: data}}, true, `response: file "a": 4 bytes, says 9`},
		"hash":       {map[string]File{"a": {Bytes: 4, SHA256: "00", Data: data}}, true, `response: file "a": its SHA-256 is not the one it says`},
		"error+data": {map[string]File{"a": {Error: "x", Data: data}}, true, `response: file "a": an error and bytes`},
	} {
		err := CheckFiles(Response{Files: tc.files}, tc.asked)
		assert.Error(t, err, tc.want, name)
	}
}
