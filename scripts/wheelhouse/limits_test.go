package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestBoundsWhatIsReadWhole: what is parsed rather than streamed is read
// within a bound, refused past it naming the file: RECORD, the headers
// of METADATA (not its description, which is only hashed), the zip
// directory archive/zip keeps, the files the set holds, and the
// requirements file.
func TestBoundsWhatIsReadWhole(t *testing.T) {
	small := bounds{wheel: 64 << 20, set: 64 << 20, files: 8, directory: 64 << 10}
	const file = "big-1.0-py3-none-any.whl"
	for _, c := range []struct {
		name   string
		files  map[string]string
		tamper func(map[string]string)
		want   string
	}{
		{"RECORD", nil, func(all map[string]string) {
			all["big-1.0.dist-info/RECORD"] += strings.Repeat("#", maxRecordBytes)
		}, file + ": big-1.0.dist-info/RECORD: over 16 MiB"},
		{"METADATA's headers", nil, func(all map[string]string) {
			all["big-1.0.dist-info/METADATA"] = "Name: big\nVersion: 1.0\n" + strings.Repeat("X-Pad: x\n", maxHeaderBytes/9+1)
		}, file + ": big-1.0.dist-info/METADATA: headers over 1024 KiB"},
		{"files", map[string]string{"a": "", "b": "", "c": "", "d": "", "e": "", "f": ""}, nil, file + ": the set installs over 8 files"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := house{dir: t.TempDir(), bounds: small}
			sum := makeWheel(t, h.dir, "big", "1.0", "py3-none-any", c.files, c.tamper)
			code, _, errs := h.run(t, "check", h.requirements(t, "big==1.0 --hash=sha256:"+sum+"\n"), "")
			assert.Check(t, is.Equal(code, 1))
			assert.Check(t, is.Contains(errs, "line 1: big==1.0: "+c.want))
		})
	}

	t.Run("zip directory", func(t *testing.T) {
		h := house{dir: t.TempDir(), bounds: small}
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for i := range 2000 {
			_, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("big/%04d/%s", i, strings.Repeat("x", 100)), Method: zip.Store})
			assert.NilError(t, err)
		}
		assert.NilError(t, zw.Close())
		path := filepath.Join(h.dir, file)
		assert.NilError(t, os.WriteFile(path, buf.Bytes(), 0o644))
		sum, err := fileSHA256(path)
		assert.NilError(t, err)
		code, _, errs := h.run(t, "check", h.requirements(t, "big==1.0 --hash=sha256:"+sum+"\n"), "")
		assert.Check(t, is.Equal(code, 1))
		assert.Check(t, is.Contains(errs, "line 1: big==1.0: "+file+": its zip directory is over 64 KiB"))
	})

	t.Run("a long description", func(t *testing.T) {
		h := house{dir: t.TempDir(), bounds: small}
		sum := makeWheel(t, h.dir, "big", "1.0", "py3-none-any", nil, nil)
		long := makeWheel(t, h.dir, "long", "1.0", "py3-none-any", nil, func(all map[string]string) {
			all["long-1.0.dist-info/METADATA"] = "Name: long\nVersion: 1.0\n\n" + strings.Repeat("A line of the description.\n", 2*maxHeaderBytes/27)
			// RECORD lists it as it now is.
			all["long-1.0.dist-info/RECORD"] = strings.Replace(all["long-1.0.dist-info/RECORD"],
				recordLine(t, all["long-1.0.dist-info/RECORD"], "long-1.0.dist-info/METADATA"),
				"long-1.0.dist-info/METADATA,"+recordHash([]byte(all["long-1.0.dist-info/METADATA"]))+",0", 1)
		})
		code, _, errs := h.run(t, "check", h.requirements(t, "big==1.0 --hash=sha256:"+sum+"\nlong==1.0 --hash=sha256:"+long+"\n"), "")
		assert.Check(t, is.Equal(code, 0), errs)
	})

	t.Run("requirements", func(t *testing.T) {
		h := house{dir: t.TempDir()}
		code, _, errs := h.run(t, "check", h.requirements(t, "# "+strings.Repeat("x", maxRequirementsBytes)), "")
		assert.Check(t, is.Equal(code, 2))
		assert.Check(t, is.Contains(errs, "--requirements: "))
		assert.Check(t, is.Contains(errs, "requirements.txt: over 16 MiB"))
	})
}

// recordLine is the row of record that lists name.
func recordLine(t *testing.T, record, name string) string {
	for _, line := range strings.Split(record, "\n") {
		if strings.HasPrefix(line, name+",") {
			return line
		}
	}
	t.Fatalf("RECORD lists no %s", name)
	return ""
}
