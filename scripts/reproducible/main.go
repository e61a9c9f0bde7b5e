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

func rewrite(in io.Reader, out io.Writer, tag string) error {
	files := map[string][]byte{}
	tr := tar.NewReader(in)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(tr, maxEntry+1))
		if err != nil {
			return err
		}
		if len(b) > maxEntry {
			return fmt.Errorf("%s: larger than %d bytes", h.Name, maxEntry)
		}
		files[h.Name] = b
	}
	var manifest []struct {
		Config string
		Layers []string
	}
	if err := json.Unmarshal(files["manifest.json"], &manifest); err != nil || len(manifest) != 1 {
		return fmt.Errorf("manifest.json: want exactly one image (%v)", err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(files[manifest[0].Config], &cfg); err != nil {
		return fmt.Errorf("config: %w", err)
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
	config, err := json.Marshal(cfg) // map keys sort: the bytes are stable
	if err != nil {
		return err
	}
	sum := sha256.Sum256(config)
	configName := hex.EncodeToString(sum[:]) + ".json"
	newManifest, err := json.Marshal([]map[string]any{{
		"Config": configName, "RepoTags": []string{tag}, "Layers": manifest[0].Layers,
	}})
	if err != nil {
		return err
	}
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
	for _, l := range manifest[0].Layers {
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
