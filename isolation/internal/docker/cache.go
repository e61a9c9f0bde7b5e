package docker

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/environ"
	"github.com/synapse-lang/synapse-isolation/limits/seccomp"
)

// cacheDirName is the directory of the user's cache dir that holds the
// seccomp profile file and what images declare.
const cacheDirName = "synapse-isolation"

// SeccompFile returns the path of the policy's seccomp profile, written to
// the user's cache dir (by env) if it is not there yet. The docker client
// reads the file and sends its content to the engine, so the path must hold
// exactly the policy's bytes when docker runs: the directory is created
// 0700 and must be this user's and not group- or world-writable, the file
// must be this user's regular file with the exact content; anything else is
// rewritten or refused, never used.
func SeccompFile(env []string) (string, error) {
	path, err := writeSeccompFile(env)
	if err != nil {
		return "", fmt.Errorf("seccomp profile: %w", err)
	}
	return path, nil
}

// writeSeccompFile is SeccompFile without the prefix on its errors.
func writeSeccompFile(env []string) (string, error) {
	base, err := cacheDir(env)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(base, cacheDirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if err := checkOwned(dir, true); err != nil {
		return "", err
	}
	path := filepath.Join(dir, seccomp.FileName())
	want := seccomp.Profile()
	if checkOwned(path, false) == nil {
		if got, err := os.ReadFile(path); err == nil && bytes.Equal(got, want) {
			return path, nil
		}
	}
	if err := replaceFile(path, want); err != nil {
		return "", err
	}
	return path, checkOwned(path, false)
}

// replaceFile puts data at path by writing it beside it and renaming it
// over it: a reader sees the old file or the whole new one, never a part.
func replaceFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// cacheDir is the user's cache directory by env, as os.UserCacheDir reads
// it from the process's: $XDG_CACHE_HOME if absolute, else $HOME/.cache.
func cacheDir(env []string) (string, error) {
	if d := environ.Get(env, "XDG_CACHE_HOME"); filepath.IsAbs(d) {
		return d, nil
	}
	if h := environ.Get(env, "HOME"); h != "" {
		return filepath.Join(h, ".cache"), nil
	}
	return "", errors.New("no cache directory to keep it in (set XDG_CACHE_HOME or HOME)")
}

// checkOwned requires path to be this user's directory (dir) or regular
// file, not a symlink, and writable by no one else.
func checkOwned(path string, dir bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	switch {
	case dir && !fi.IsDir():
		return fmt.Errorf("%s is not a directory", path)
	case !dir && !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", path)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s is mode %04o: others could change the profile; want 0700 for the directory", path, fi.Mode().Perm())
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return errors.New("cannot read the owner of " + path)
	}
	if int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s belongs to uid %d, not to this user (uid %d)", path, st.Uid, os.Geteuid())
	}
	return nil
}
