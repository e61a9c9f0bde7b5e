// Package environ reads values out of an environment given as a list of
// KEY=VALUE strings, the form of os.Environ and exec.Cmd.Env. The CLI and
// the library pass such lists around as values (never the process's own),
// so tests can run side by side with environments of their own.
package environ

import "strings"

// Lookup returns the value of key in env and whether it is set. The last
// setting wins, as it does in a process's environment when a key repeats.
func Lookup(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// Get returns the value of key in env, or "" when it is not set.
func Get(env []string, key string) string {
	v, _ := Lookup(env, key)
	return v
}
