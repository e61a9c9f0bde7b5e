package main

import (
	"archive/zip"
	"crypto/sha256"
	"fmt"
	"io"
)

// hashMember streams f through m into its SHA-256, and into keep if not
// nil, and records in mb the bytes it decompressed to and their digest:
// the counted bytes, not the size its zip headers claim.
func hashMember(f *zip.File, mb *member, keep io.Writer, m *meter, buf []byte) error {
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	h := sha256.New()
	var w io.Writer = h
	if keep != nil {
		w = io.MultiWriter(h, keep)
	}
	n, err := m.copy(w, rc, buf)
	if err != nil {
		return err
	}
	mb.size = n
	h.Sum(mb.sum[:0])
	return nil
}

// capped keeps what is written to it, up to max bytes, and refuses more.
type capped struct {
	max  int
	data []byte
}

func (c *capped) Write(p []byte) (int, error) {
	if len(c.data)+len(p) > c.max {
		return 0, fmt.Errorf("over %d MiB", c.max>>20)
	}
	c.data = append(c.data, p...)
	return len(p), nil
}

// prefix keeps the first max bytes written to it and drops the rest.
type prefix struct {
	max     int
	data    []byte
	dropped bool
}

func (p *prefix) Write(b []byte) (int, error) {
	keep := b[:min(len(b), p.max-len(p.data))]
	p.data = append(p.data, keep...)
	p.dropped = p.dropped || len(keep) < len(b)
	return len(b), nil
}

// complete says whether every byte written is kept.
func (p *prefix) complete() bool { return !p.dropped }
