package main

import (
	"archive/zip"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
)

// member is one file a wheel installs: its name in the archive, its path
// under the site directory, and the size and SHA-256 it was checked at.
type member struct {
	name, dest string
	exec       bool
	size       int64
	sum        [32]byte
}

// plan is a wheel checked and what installing it writes: names, sizes
// and digests, never a file's bytes, which install reads again.
type plan struct {
	choice
	record  string            // its RECORD's path in the archive
	members []member          // in the archive's order
	moved   map[string]string // from NAME.data/, archive name to destination
}

// inspect reads c's wheel, a member at a time, and checks it as the
// wheel format asks an installer to: one .dist-info directory, the
// wheel's own, with WHEEL (format 1.x), METADATA of the wheel's name and
// version, and RECORD, every file listed in RECORD with its SHA-256 and
// every listed file present; no path that is absolute, climbs (..), is a
// link or lands outside the site directory; no file that Python's site
// runs at start unless hooks. Files of NAME.data/purelib and platlib go
// to the site directory, as Debian's Python keeps both there; scripts,
// headers and data would land elsewhere in the image and are refused.
func inspect(c choice, m *meter, hooks bool) (plan, error) {
	p := plan{choice: c, moved: map[string]string{}}
	bad := func(err error) (plan, error) {
		return p, fmt.Errorf("%s: %w", c.wheel.file, err)
	}
	w, err := openWheel(c, m.directory)
	if err != nil {
		return bad(err)
	}
	defer w.Close()
	distInfo, err := layout(w, c.wheel)
	if err != nil {
		return bad(err)
	}
	p.record = distInfo + "/RECORD"
	if err := p.listMembers(w, distInfo, m, hooks); err != nil {
		return bad(err)
	}
	record, wheelMeta, metadata, err := p.hashMembers(w, distInfo, m)
	if err != nil {
		return bad(err)
	}
	if err := checkWheelFile(wheelMeta); err != nil {
		return bad(fmt.Errorf("%s/WHEEL: %w", distInfo, err))
	}
	if err := checkMetadata(metadata, c.wheel); err != nil {
		return bad(fmt.Errorf("%s/METADATA: %w", distInfo, err))
	}
	if err := p.agreeWithRecord(record, distInfo); err != nil {
		return bad(err)
	}
	return p, nil
}

// listMembers lists w's files as p's members, each with where it installs
// (a .data directory's purelib and platlib files at the site's top),
// refusing a file outside the site directory, two files of one
// destination and, without hooks, a start-up hook.
func (p *plan) listMembers(w wheelFile, distInfo string, m *meter, hooks bool) error {
	dataDir := strings.TrimSuffix(distInfo, ".dist-info") + ".data/"
	dests := map[string]string{}
	for _, f := range w.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		if err := m.addFile(); err != nil {
			return err
		}
		mb := member{name: f.Name, dest: f.Name, exec: f.Mode()&0o111 != 0}
		if rest, ok := strings.CutPrefix(f.Name, dataDir); ok {
			scheme, inner, _ := strings.Cut(rest, "/")
			if scheme != "purelib" && scheme != "platlib" {
				return fmt.Errorf("%s: installs into the image's %s, outside the site directory; only purelib and platlib files are installed", f.Name, scheme)
			}
			if inner == "" {
				return fmt.Errorf("%s: not a file under %s", f.Name, scheme)
			}
			mb.dest = inner
			p.moved[f.Name] = inner
		}
		if prev, dup := dests[mb.dest]; dup {
			return fmt.Errorf("%s and %s both install %s", prev, f.Name, mb.dest)
		}
		dests[mb.dest] = f.Name
		if why := startupHook(mb.dest); why != "" && !hooks {
			return fmt.Errorf("%s: %s; --startup-hooks installs it", f.Name, why)
		}
		p.members = append(p.members, mb)
	}
	return nil
}

// agreeWithRecord holds p's members, hashed, to RECORD's rows: each file
// listed with its digest (RECORD itself and its signatures aside), and
// nothing listed that the wheel lacks.
func (p *plan) agreeWithRecord(record []byte, distInfo string) error {
	listed, err := readRecord(record)
	if err != nil {
		return fmt.Errorf("%s: %w", p.record, err)
	}
	for _, mb := range p.members {
		want, ok := listed[mb.name]
		switch {
		case isRecord(mb.name) && path.Dir(mb.name) == distInfo:
		case !ok:
			return fmt.Errorf("%s is not in RECORD", mb.name)
		case want != recordDigest(mb.sum[:]):
			return fmt.Errorf("%s: its sha256 is not RECORD's", mb.name)
		}
		delete(listed, mb.name)
	}
	if len(listed) > 0 {
		return fmt.Errorf("RECORD lists %s, which the wheel lacks", slices.Min(slices.Collect(maps.Keys(listed))))
	}
	return nil
}

// layout checks every path of the archive and finds its one .dist-info
// directory, which must be w's own; a NAME.data directory must be its
// too.
func layout(zr wheelFile, w wheelName) (string, error) {
	seen := map[string]bool{}
	var infos, datas []string
	for _, f := range zr.File {
		name := strings.TrimSuffix(f.Name, "/")
		if err := checkPath(name); err != nil {
			return "", fmt.Errorf("%s: %v", f.Name, err)
		}
		if !strings.HasSuffix(f.Name, "/") && f.Mode()&fs.ModeType != 0 {
			return "", fmt.Errorf("%s: not a regular file (%v)", f.Name, f.Mode().Type())
		}
		if seen[f.Name] {
			return "", fmt.Errorf("%s: in the archive twice", f.Name)
		}
		seen[f.Name] = true
		top, _, isDir := strings.Cut(name, "/")
		isDir = isDir || strings.HasSuffix(f.Name, "/")
		switch {
		case isDir && strings.HasSuffix(top, ".dist-info") && !slices.Contains(infos, top):
			infos = append(infos, top)
		case isDir && strings.HasSuffix(top, ".data") && !slices.Contains(datas, top):
			datas = append(datas, f.Name)
		}
	}
	switch len(infos) {
	case 0:
		return "", fmt.Errorf("no .dist-info directory")
	case 1:
	default:
		slices.Sort(infos)
		return "", fmt.Errorf("more than one .dist-info directory: %s", strings.Join(infos, ", "))
	}
	if err := checkDistInfo(infos[0], w); err != nil {
		return "", err
	}
	own := strings.TrimSuffix(infos[0], ".dist-info") + ".data"
	for _, d := range datas {
		if top, _, _ := strings.Cut(d, "/"); top != own {
			return "", fmt.Errorf("%s: a .data directory not %s", d, own)
		}
	}
	return infos[0], nil
}

// hashMembers streams every member into its SHA-256 through m, and
// keeps RECORD whole (within maxRecordBytes) and the first
// maxHeaderBytes of WHEEL and METADATA, the files read for their
// content.
func (p *plan) hashMembers(w wheelFile, distInfo string, m *meter) (record []byte, wheelMeta, metadata map[string]string, err error) {
	files := map[string]*zip.File{}
	for _, f := range w.File {
		files[f.Name] = f
	}
	rec := &capped{max: maxRecordBytes}
	wheelHead, metaHead := &prefix{max: maxHeaderBytes}, &prefix{max: maxHeaderBytes}
	found := 0
	buf := make([]byte, 32<<10)
	m.startWheel()
	for i := range p.members {
		mb := &p.members[i]
		var keep io.Writer
		switch mb.name {
		case p.record:
			keep = rec
		case distInfo + "/WHEEL":
			keep = wheelHead
		case distInfo + "/METADATA":
			keep = metaHead
		}
		if keep != nil {
			found++
		}
		if err := hashMember(files[mb.name], mb, keep, m, buf); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %v", mb.name, err)
		}
	}
	if found != 3 {
		return nil, nil, nil, fmt.Errorf("%s lacks WHEEL, METADATA or RECORD", distInfo)
	}
	if wheelMeta, err = readHeaders(wheelHead.data, wheelHead.complete()); err != nil {
		return nil, nil, nil, fmt.Errorf("%s/WHEEL: %v", distInfo, err)
	}
	if metadata, err = readHeaders(metaHead.data, metaHead.complete()); err != nil {
		return nil, nil, nil, fmt.Errorf("%s/METADATA: %v", distInfo, err)
	}
	return rec.data, wheelMeta, metadata, nil
}
