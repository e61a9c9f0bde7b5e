package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// install writes every checked wheel's files under site; none may be
// there already (a file of a Debian package, or of another wheel), and
// nothing is written unless none is. Each wheel is read again, a member
// at a time, and each file must come to the size and digest it was
// checked at: a wheel changed since is refused, mid-write (the root it
// was writing is then the build's to discard).
func install(plans []plan, site string, b bounds) error {
	if err := os.MkdirAll(site, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(site)
	if err != nil {
		return err
	}
	defer root.Close()
	owner := map[string]string{}
	for _, p := range plans {
		for _, mb := range p.members {
			if prev, ok := owner[mb.dest]; ok {
				return fmt.Errorf("%s and %s both install %s", prev, p.wheel.file, mb.dest)
			}
			owner[mb.dest] = p.wheel.file
			if _, err := root.Lstat(mb.dest); err == nil {
				return fmt.Errorf("%s: %s is in the image already", p.wheel.file, mb.dest)
			}
			if err := realDirs(root, mb.dest); err != nil {
				return fmt.Errorf("%s: %s: %v", p.wheel.file, mb.dest, err)
			}
		}
	}
	// A file where another needs a directory would fail mid-write.
	for dest, wheel := range owner {
		for dir := path.Dir(dest); dir != "."; dir = path.Dir(dir) {
			if other, ok := owner[dir]; ok {
				return fmt.Errorf("%s installs the file %s, where %s needs a directory", other, dir, wheel)
			}
		}
	}
	buf := make([]byte, 32<<10)
	for _, p := range plans {
		if err := p.write(root, b, buf); err != nil {
			return fmt.Errorf("%s: %v", p.wheel.file, err)
		}
	}
	return nil
}

// write writes p's files into root.
func (p plan) write(root *os.Root, b bounds, buf []byte) error {
	w, err := openWheel(p.choice, b.directory)
	if err != nil {
		return err
	}
	defer w.Close()
	files := map[string]int{}
	for i, f := range w.File {
		files[f.Name] = i
	}
	for _, mb := range p.members {
		i, ok := files[mb.name]
		if !ok {
			return fmt.Errorf("%s: gone since it was checked", mb.name)
		}
		rc, err := w.File[i].Open()
		if err != nil {
			return fmt.Errorf("%s: %v", mb.name, err)
		}
		err = p.writeMember(root, mb, rc, buf)
		rc.Close()
		if err != nil {
			return fmt.Errorf("%s: %v", mb.name, err)
		}
	}
	return nil
}

// writeMember streams one member to its destination, created anew
// (O_EXCL: never through a link, never over a file), reading no more
// than the size it was checked at and one byte.
func (p plan) writeMember(root *os.Root, mb member, r io.Reader, buf []byte) error {
	h := sha256.New()
	r = io.TeeReader(io.LimitReader(r, mb.size+1), h)
	if mb.name == p.record && len(p.moved) > 0 {
		record, err := io.ReadAll(r) // mb.size+1 at most, within maxRecordBytes
		if err != nil {
			return err
		}
		if err := sameAsChecked(mb, int64(len(record)), h.Sum(nil)); err != nil {
			return err
		}
		relocated, err := relocateRecord(record, p.moved)
		if err != nil {
			return err
		}
		r, h = strings.NewReader(string(relocated)), nil
	}
	if err := root.MkdirAll(path.Dir(mb.dest), 0o755); err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if mb.exec {
		mode = 0o755
	}
	out, err := root.OpenFile(mb.dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	n, err := io.CopyBuffer(out, r, buf)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil || h == nil {
		return err
	}
	return sameAsChecked(mb, n, h.Sum(nil))
}

// sameAsChecked refuses a member whose bytes are not those checked.
func sameAsChecked(mb member, n int64, sum []byte) error {
	if n != mb.size || string(sum) != string(mb.sum[:]) {
		return fmt.Errorf("changed since it was checked")
	}
	return nil
}

// checkPath refuses an archive path that is absolute, climbs, is empty
// in part, or is written with backslashes.
func checkPath(name string) error {
	if strings.HasPrefix(name, "/") || strings.Contains(name, `\`) || path.Clean(name) != name {
		return fmt.Errorf("not a clean relative path")
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." || part == "." || part == "" {
			return fmt.Errorf("not a clean relative path")
		}
	}
	return nil
}

// realDirs refuses a file whose directories under the site directory
// include one that is not a directory of its own: a link a package put
// there would carry the wheel's file elsewhere in the image (os.Root
// keeps it in the site directory, not in its own package). Those not
// there yet are made by install, as directories.
func realDirs(root *os.Root, dest string) error {
	dir := ""
	for _, part := range strings.Split(path.Dir(dest), "/") {
		if part == "." {
			break
		}
		dir = path.Join(dir, part)
		fi, err := root.Lstat(dir)
		switch {
		case os.IsNotExist(err):
			return nil
		case err != nil:
			return err
		case !fi.IsDir():
			return fmt.Errorf("%s in the image is not a directory (%v)", dir, fi.Mode().Type())
		}
	}
	return nil
}
