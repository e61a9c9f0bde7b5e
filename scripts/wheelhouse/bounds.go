package main

import (
	"fmt"
	"io"
)

// Bounds of what one run reads from the wheels. Wheels are streamed, a
// member at a time through a fixed buffer, so memory does not grow with
// what they decompress to; these bound the build host's time and disk,
// and refuse a zip bomb by the bytes its members actually decompress to,
// never by the sizes its headers claim.
const (
	// maxWheelBytes is what one wheel may decompress to: a CPU build of
	// torch, among the largest wheels an image of this kind would take,
	// unpacks to under 1 GiB.
	maxWheelBytes int64 = 1 << 30
	// maxSetBytes is what the whole set may decompress to: every byte is
	// inflated, hashed and written on the build host, and then is a layer
	// of an image that starts for every run; a set past 2 GiB is not what
	// a sandbox's image is for.
	maxSetBytes int64 = 2 << 30
	// maxSetFiles bounds the names kept between check and install (a
	// file's path, destination and digest): the largest wheels have
	// tens of thousands of files.
	maxSetFiles = 1 << 18
	// maxDirectoryBytes bounds a wheel's zip central directory, which
	// archive/zip holds whole in memory at several times its size on
	// disk: 16 MiB names over 100,000 files.
	maxDirectoryBytes int64 = 16 << 20
	// maxRecordBytes bounds RECORD, read whole to be parsed: a row a
	// file, a hundred-odd bytes each.
	maxRecordBytes = 16 << 20
	// maxHeaderBytes bounds the part of WHEEL and METADATA read for
	// their headers; METADATA's description after them is hashed, never
	// kept.
	maxHeaderBytes = 1 << 20
	// maxRequirementsBytes bounds the requirements file: a line of a
	// few kilobytes (dozens of hashes) for each of thousands of names.
	maxRequirementsBytes = 16 << 20
)

// bounds are the decompressed bytes a wheel and the set may come to, the
// files the set may hold and the bytes of a wheel's zip directory; a
// test passes smaller ones.
type bounds struct {
	wheel, set int64
	files      int
	directory  int64
}

var defaultBounds = bounds{wheel: maxWheelBytes, set: maxSetBytes, files: maxSetFiles, directory: maxDirectoryBytes}

// meter counts what the wheels of one run decompress to, against bounds.
type meter struct {
	bounds
	wheelBytes, setBytes int64
	files                int
}

// startWheel begins the count of the next wheel's bytes.
func (m *meter) startWheel() { m.wheelBytes = 0 }

// addFile counts one more file of the set.
func (m *meter) addFile() error {
	m.files++
	if m.files > m.bounds.files {
		return fmt.Errorf("the set installs over %d files", m.bounds.files)
	}
	return nil
}

// copy streams r into w through buf and returns the bytes r yielded; it
// reads at most one byte past what the bounds leave, so a bomb costs no
// more than the bound to refuse.
func (m *meter) copy(w io.Writer, r io.Reader, buf []byte) (int64, error) {
	room := min(m.wheel-m.wheelBytes, m.set-m.setBytes)
	n, err := io.CopyBuffer(w, io.LimitReader(r, room+1), buf)
	m.wheelBytes += n
	m.setBytes += n
	switch {
	case m.wheelBytes > m.wheel:
		return n, fmt.Errorf("decompresses past %d MiB, the bound of a wheel", m.wheel>>20)
	case m.setBytes > m.set:
		return n, fmt.Errorf("decompresses past %d MiB, the bound of the whole set", m.set>>20)
	}
	return n, err
}
