package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// checkDistInfo refuses a .dist-info directory that is not the wheel's
// own: its name and version, compared as PEP 503 and PEP 427 write them
// (runs of -_. are one, case is not read), must be the file name's,
// which choose matched to the line's pin. Otherwise the wheel installs
// another distribution under this one's pin, as pip refuses to.
func checkDistInfo(distInfo string, w wheelName) error {
	base := strings.TrimSuffix(distInfo, ".dist-info")
	i := strings.LastIndex(base, "-")
	if i < 0 || normalize(base[:i]) != w.name || !strings.EqualFold(base[i+1:], w.version) {
		return fmt.Errorf("%s: not %s %s's .dist-info (%s-%s.dist-info)", distInfo, w.name, w.version, w.dist, w.version)
	}
	return nil
}

// checkMetadata refuses METADATA whose Name or Version is not the
// wheel's: the installed distribution is what importlib.metadata and pip
// read from it.
func checkMetadata(headers map[string]string, w wheelName) error {
	if name := headers["name"]; normalize(name) != w.name {
		return fmt.Errorf("Name is %s, not %s", name, w.name)
	}
	if version := headers["version"]; !strings.EqualFold(version, w.version) {
		return fmt.Errorf("Version is %s, not %s", version, w.version)
	}
	return nil
}

// checkWheelFile refuses a WHEEL of a format other than 1.x.
func checkWheelFile(headers map[string]string) error {
	if !strings.HasPrefix(headers["wheel-version"], "1.") {
		return errors.New("Wheel-Version is not 1.x")
	}
	return nil
}

// readHeaders reads the first value of each header of a WHEEL or
// METADATA file (RFC 822 style, names lowercased) up to the blank line
// that ends them; the headers must end within the bytes given.
func readHeaders(data []byte, complete bool) (map[string]string, error) {
	headers := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" {
			return headers, nil
		}
		if line[0] == ' ' || line[0] == '\t' {
			continue // a folded value goes on
		}
		if key, value, ok := strings.Cut(line, ":"); ok {
			key = strings.ToLower(strings.TrimSpace(key))
			if _, seen := headers[key]; !seen {
				headers[key] = strings.TrimSpace(value)
			}
		}
	}
	if !complete {
		return nil, fmt.Errorf("headers over %d KiB", maxHeaderBytes>>10)
	}
	return headers, nil
}

// readRecord is RECORD's rows as path to "sha256=<urlsafe base64>"; a
// row with another algorithm or none (but RECORD's own) is refused, and
// so is a path listed twice.
func readRecord(record []byte) (map[string]string, error) {
	r := csv.NewReader(bytes.NewReader(record))
	r.FieldsPerRecord = 3
	r.ReuseRecord = true
	listed := map[string]string{}
	for {
		row, err := r.Read()
		if err == io.EOF {
			return listed, nil
		}
		if err != nil {
			return nil, err
		}
		name, hash := row[0], row[1]
		if hash == "" && isRecord(name) {
			continue
		}
		if !strings.HasPrefix(hash, "sha256=") {
			return nil, fmt.Errorf("%s: hash %q, want sha256=", name, hash)
		}
		if _, dup := listed[name]; dup {
			return nil, fmt.Errorf("%s: listed twice", name)
		}
		listed[name] = hash
	}
}

// isRecord says whether name is a RECORD or its signature, which RECORD
// lists without a hash.
func isRecord(name string) bool {
	return strings.HasSuffix(name, ".dist-info/RECORD") || strings.HasSuffix(name, ".dist-info/RECORD.jws") || strings.HasSuffix(name, ".dist-info/RECORD.p7s")
}

// recordDigest is a SHA-256 as RECORD writes it.
func recordDigest(sum []byte) string {
	return "sha256=" + base64.RawURLEncoding.EncodeToString(sum)
}

// relocateRecord rewrites the paths of the files installed from
// NAME.data/ to where they were installed, as the format asks.
func relocateRecord(record []byte, moved map[string]string) ([]byte, error) {
	r := csv.NewReader(bytes.NewReader(record))
	r.FieldsPerRecord = 3
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	for {
		row, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if dest, ok := moved[row[0]]; ok {
			row[0] = dest
		}
		if err := w.Write(row); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return out.Bytes(), w.Error()
}
