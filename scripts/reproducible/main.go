// Command reproducible rewrites a `docker save` archive of a single-image
// build so that its image ID depends only on its content: it drops what
// the legacy builder stamps into the config at build time (creation
// times, the build container's ID and hostname, the intermediate parent
// image, the engine version) and writes a fresh archive with fixed tar
// headers for `docker load`. The layers are passed through unchanged;
// docker load verifies them against the config's diff IDs.
//
// Usage: docker save IMAGE | go run ./scripts/reproducible TAG | docker load
package main

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: docker save IMAGE | reproducible TAG | docker load")
		os.Exit(2)
	}
	if err := rewrite(os.Stdin, os.Stdout, os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "reproducible:", err)
		os.Exit(1)
	}
}

// maxEntry bounds any one file read from the archive.
const maxEntry = 256 << 20

// manifest is docker save's manifest.json: one entry per image.
type manifest []struct {
	Config string
	Layers []string
}

func rewrite(in io.Reader, out io.Writer, tag string) error {
	files, err := readArchive(in)
	if err != nil {
		return err
	}
	var m manifest
	if err := json.Unmarshal(files["manifest.json"], &m); err != nil || len(m) != 1 {
		return fmt.Errorf("manifest.json: want exactly one image (%v)", err)
	}
	config, err := stableConfig(files[m[0].Config])
	if err != nil {
		return err
	}
	sum := sha256.Sum256(config)
	configName := hex.EncodeToString(sum[:]) + ".json"
	newManifest, err := json.Marshal([]map[string]any{{
		"Config": configName, "RepoTags": []string{tag}, "Layers": m[0].Layers,
	}})
	if err != nil {
		return err
	}
	return writeArchive(out, files, configName, config, m[0].Layers, newManifest)
}

// readArchive is the archive's regular files by name.
func readArchive(in io.Reader) (map[string][]byte, error) {
	files := map[string][]byte{}
	tr := tar.NewReader(in)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(tr, maxEntry+1))
		if err != nil {
			return nil, err
		}
		if len(b) > maxEntry {
			return nil, fmt.Errorf("%s: larger than %d bytes", h.Name, maxEntry)
		}
		files[h.Name] = b
	}
	return files, nil
}

// stableConfig is the image config without what the build stamped into it.
func stableConfig(raw []byte) ([]byte, error) {
	var cfg map[string]any
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	epoch := time.Unix(0, 0).UTC().Format(time.RFC3339)
	for _, k := range []string{"container", "container_config", "docker_version", "parent"} {
		delete(cfg, k)
	}
	cfg["created"] = epoch
	if c, ok := cfg["config"].(map[string]any); ok {
		delete(c, "Image")
		delete(c, "Hostname")
	}
	if hist, ok := cfg["history"].([]any); ok {
		for _, h := range hist {
			if m, ok := h.(map[string]any); ok {
				m["created"] = epoch
			}
		}
	}
	return json.Marshal(cfg) // map keys sort: the bytes are stable
}

// writeArchive writes the config, the layers in the manifest's order and
// the manifest, each with a fixed header.
func writeArchive(out io.Writer, files map[string][]byte, configName string, config []byte, layers []string, newManifest []byte) error {
	tw := tar.NewWriter(out)
	add := func(name string, b []byte) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), ModTime: time.Unix(0, 0), Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(b)
		return err
	}
	if err := add(configName, config); err != nil {
		return err
	}
	for _, l := range layers {
		b, ok := files[l]
		if !ok {
			return fmt.Errorf("layer %s missing from the archive", l)
		}
		if err := add(l, b); err != nil {
			return err
		}
	}
	if err := add("manifest.json", newManifest); err != nil {
		return err
	}
	return tw.Close()
}
