package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/csv"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Bounds of one wheel: an operator's wheelhouse is trusted to be what its
// hashes say, not to be small, but a zip bomb still fails here, not the
// build machine. Variables, so a test can hold a file to a smaller bound.
var (
	maxFile  uint64 = 256 << 20
	maxWheel uint64 = 1 << 30
)

// file is one file a wheel installs: its path under the site directory,
// its bytes and whether it is executable.
type file struct {
	dest string
	data []byte
	exec bool
}

// unpacked is a wheel read and verified, ready to write.
type unpacked struct {
	wheel string
	files []file
}

// readWheel reads a wheel whole and checks it as the wheel format asks an
// installer to: one .dist-info directory with WHEEL (format 1.x) and
// RECORD, every file listed in RECORD with its SHA-256 and every listed
// file present, no path that is absolute, climbs (..), is a link or lands
// outside the site directory. Files of NAME.data/purelib and platlib go to
// the site directory, as Debian's Python keeps both there; scripts,
// headers and data would land elsewhere in the image and are refused.
func readWheel(c choice) (unpacked, error) {
	u := unpacked{wheel: c.wheel.file}
	zr, err := zip.OpenReader(c.path)
	if err != nil {
		return u, fmt.Errorf("%s: %v", c.wheel.file, err)
	}
	defer zr.Close()
	bad := func(format string, a ...any) (unpacked, error) {
		return u, fmt.Errorf("%s: %s", c.wheel.file, fmt.Sprintf(format, a...))
	}
	contents := map[string][]byte{}
	modes := map[string]fs.FileMode{}
	var total uint64
	var distInfo string
	for _, f := range zr.File {
		name := f.Name
		if strings.HasSuffix(name, "/") {
			continue
		}
		if err := checkPath(name); err != nil {
			return bad("%s: %v", name, err)
		}
		if f.Mode()&fs.ModeType != 0 {
			return bad("%s: not a regular file (%v)", name, f.Mode().Type())
		}
		total += f.UncompressedSize64
		if f.UncompressedSize64 > maxFile || total > maxWheel {
			return bad("%s: over %d MiB, or the wheel over %d MiB", name, maxFile>>20, maxWheel>>20)
		}
		data, err := readEntry(f)
		if err != nil {
			return bad("%s: %v", name, err)
		}
		if _, dup := contents[name]; dup {
			return bad("%s: in the archive twice", name)
		}
		contents[name] = data
		modes[name] = f.Mode()
		if top, rest, _ := strings.Cut(name, "/"); strings.HasSuffix(top, ".dist-info") && (rest == "RECORD" || rest == "WHEEL") {
			if distInfo != "" && distInfo != top {
				return bad("two .dist-info directories, %s and %s", distInfo, top)
			}
			distInfo = top
		}
	}
	record, okR := contents[distInfo+"/RECORD"]
	wheelMeta, okW := contents[distInfo+"/WHEEL"]
	if distInfo == "" || !okR || !okW {
		return bad("no .dist-info directory with WHEEL and RECORD")
	}
	if !wheelVersion1(wheelMeta) {
		return bad("%s/WHEEL: Wheel-Version is not 1.x", distInfo)
	}
	listed, err := readRecord(record)
	if err != nil {
		return bad("%s/RECORD: %v", distInfo, err)
	}
	dataDir := strings.TrimSuffix(distInfo, ".dist-info") + ".data/"
	moved := map[string]string{}
	for name, data := range contents {
		own := name == distInfo+"/RECORD" || name == distInfo+"/RECORD.jws" || name == distInfo+"/RECORD.p7s"
		if want, ok := listed[name]; !own && !ok {
			return bad("%s is not in RECORD", name)
		} else if !own && want != recordHash(data) {
			return bad("%s: its sha256 is not RECORD's", name)
		}
		dest := name
		if rest, ok := strings.CutPrefix(name, dataDir); ok {
			scheme, inner, _ := strings.Cut(rest, "/")
			if scheme != "purelib" && scheme != "platlib" {
				return bad("%s: installs into the image's %s, outside the site directory; only purelib and platlib files are installed", name, scheme)
			}
			dest = inner
			moved[name] = dest
		}
		u.files = append(u.files, file{dest: dest, data: data, exec: modes[name]&0o111 != 0})
	}
	for name := range listed {
		if _, ok := contents[name]; !ok {
			return bad("RECORD lists %s, which the wheel lacks", name)
		}
	}
	if len(moved) > 0 {
		for i, f := range u.files {
			if f.dest == distInfo+"/RECORD" {
				u.files[i].data = relocateRecord(record, moved)
			}
		}
	}
	return u, nil
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

func readEntry(f *zip.File) ([]byte, error) {
	r, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, int64(maxFile)+1))
	if err != nil {
		return nil, err
	}
	if uint64(len(data)) != f.UncompressedSize64 {
		return nil, fmt.Errorf("its size is not the archive's")
	}
	return data, nil
}

func wheelVersion1(meta []byte) bool {
	for _, line := range strings.Split(string(meta), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Wheel-Version:"); ok {
			return strings.HasPrefix(strings.TrimSpace(v), "1.")
		}
	}
	return false
}

// readRecord is RECORD's rows as path to "sha256=<urlsafe base64>"; a
// row with another algorithm or none (but RECORD's own) is refused.
func readRecord(record []byte) (map[string]string, error) {
	rows, err := csv.NewReader(bytes.NewReader(record)).ReadAll()
	if err != nil {
		return nil, err
	}
	listed := map[string]string{}
	for _, row := range rows {
		if len(row) != 3 {
			return nil, fmt.Errorf("a row of %d fields, want path,hash,size", len(row))
		}
		name, hash := row[0], row[1]
		if hash == "" && (strings.HasSuffix(name, ".dist-info/RECORD") || strings.HasSuffix(name, ".dist-info/RECORD.jws") || strings.HasSuffix(name, ".dist-info/RECORD.p7s")) {
			continue
		}
		if !strings.HasPrefix(hash, "sha256=") {
			return nil, fmt.Errorf("%s: hash %q, want sha256=", name, hash)
		}
		listed[name] = hash
	}
	return listed, nil
}

func recordHash(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256=" + base64.RawURLEncoding.EncodeToString(sum[:])
}

// relocateRecord rewrites the paths of the files installed from
// NAME.data/ to where they were installed, as the format asks.
func relocateRecord(record []byte, moved map[string]string) []byte {
	rows, _ := csv.NewReader(bytes.NewReader(record)).ReadAll() // read before
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	for _, row := range rows {
		if dest, ok := moved[row[0]]; ok {
			row[0] = dest
		}
		_ = w.Write(row) // a bytes.Buffer does not fail
	}
	w.Flush()
	return out.Bytes()
}

// install writes every wheel's files under site; none may be there
// already (a file of a Debian package, or of another wheel), and nothing
// is written unless none is.
func install(all []unpacked, site string) error {
	owner := map[string]string{}
	for _, u := range all {
		for _, f := range u.files {
			if prev, ok := owner[f.dest]; ok {
				return fmt.Errorf("%s and %s both install %s", prev, u.wheel, f.dest)
			}
			owner[f.dest] = u.wheel
			if _, err := os.Lstat(filepath.Join(site, f.dest)); err == nil {
				return fmt.Errorf("%s: %s is in the image already", u.wheel, f.dest)
			}
			if err := realDirs(site, f.dest); err != nil {
				return fmt.Errorf("%s: %s: %v", u.wheel, f.dest, err)
			}
		}
	}
	for _, u := range all {
		for _, f := range u.files {
			dest := filepath.Join(site, f.dest)
			if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
				return err
			}
			mode := fs.FileMode(0o644)
			if f.exec {
				mode = 0o755
			}
			if err := os.WriteFile(dest, f.data, mode); err != nil {
				return err
			}
		}
	}
	return nil
}

// realDirs refuses a file whose directories under site include one that
// is not a directory of its own: a link a package put there would carry
// the wheel's file out of the site directory. Those not there yet are
// made by install, as directories.
func realDirs(site, dest string) error {
	dir := site
	for _, part := range strings.Split(path.Dir(dest), "/") {
		if part == "." {
			break
		}
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		switch {
		case os.IsNotExist(err):
			return nil
		case err != nil:
			return err
		case !fi.IsDir():
			return fmt.Errorf("%s in the image is not a directory (%v)", strings.TrimPrefix(dir, site+"/"), fi.Mode().Type())
		}
	}
	return nil
}
