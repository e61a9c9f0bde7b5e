package docker

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/environ"
)

// maxConfig bounds the docker config file read.
const maxConfig = 1 << 20

// Proxies refuses a docker CLI config that sets proxies: `docker run`
// copies them into the container's environment (HTTP_PROXY and friends),
// outside the argv and without any -e flag, so they would leak host
// configuration past the policy. It returns the config's path (empty
// without one to look at) and, when the config sets proxies or cannot be
// read, why the run is refused.
func Proxies(env []string) (path string, err error) {
	path, keys, err := proxyKeys(env)
	if err != nil {
		return path, fmt.Errorf("reading docker config: %w", err)
	}
	if len(keys) > 0 {
		return path, fmt.Errorf("docker config %s sets proxies (%s), which docker run copies into the "+
			"container's environment; remove them or point DOCKER_CONFIG at a config without proxies",
			path, strings.Join(keys, ", "))
	}
	return path, nil
}

// proxyKeys finds proxy settings in the docker CLI's config file, found
// as the CLI finds it: $DOCKER_CONFIG/config.json, else
// ~/.docker/config.json.
func proxyKeys(env []string) (path string, keys []string, err error) {
	dir, home := environ.Get(env, "DOCKER_CONFIG"), environ.Get(env, "HOME")
	if dir == "" {
		if home == "" {
			return "", nil, nil
		}
		dir = filepath.Join(home, ".docker")
	}
	path = filepath.Join(dir, "config.json")
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return path, nil, nil
	}
	if err != nil {
		return path, nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxConfig))
	if err != nil {
		return path, nil, err
	}
	var cfg struct {
		Proxies map[string]map[string]string `json:"proxies"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return path, nil, fmt.Errorf("%s: %w", path, err)
	}
	for host, p := range cfg.Proxies {
		for k, v := range p {
			if v != "" {
				keys = append(keys, host+"."+k)
			}
		}
	}
	sort.Strings(keys)
	return path, keys, nil
}
