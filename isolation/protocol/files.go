package protocol

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// maxFileEntries bounds a response's files: the returned ones and the
// matches named as not returned, and an entry per pattern.
const maxFileEntries = 3 * MaxCollect

// CheckFiles holds a response's files to what was asked (collected says
// whether the request named any) and to themselves, since the host writes
// them by name into a directory: each entry is an error alone, or a plain
// name (CheckName) whose bytes are as many as it says, with the
// SHA-256 it says.
func CheckFiles(r Response, collected bool) error {
	if r.Files == nil {
		return nil
	}
	if !collected {
		return errors.New("response: files, where none were asked for")
	}
	if len(r.Files) > maxFileEntries {
		return fmt.Errorf("response: %d file entries, more than %d", len(r.Files), maxFileEntries)
	}
	for name, f := range r.Files {
		if f.Error != "" {
			if f.Data != nil || f.Bytes != 0 || f.SHA256 != "" {
				return fmt.Errorf("response: file %q: an error and bytes", name)
			}
			continue
		}
		if err := CheckName(name); err != nil {
			return fmt.Errorf("response: %w", err)
		}
		sum := sha256.Sum256(f.Data)
		switch {
		case int64(len(f.Data)) != f.Bytes:
			return fmt.Errorf("response: file %q: %d bytes, says %d", name, len(f.Data), f.Bytes)
		case hex.EncodeToString(sum[:]) != f.SHA256:
			return fmt.Errorf("response: file %q: its SHA-256 is not the one it says", name)
		}
	}
	return nil
}
