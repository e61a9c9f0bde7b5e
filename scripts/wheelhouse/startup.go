package main

import "strings"

// startupHook says why Python's site would run the file a wheel installs
// at dest (a path under the site directory) at every interpreter start,
// before any program: site executes the import lines of each *.pth at
// the top of a site directory, and imports the modules sitecustomize and
// usercustomize from wherever sys.path finds them (a source, bytecode or
// extension module, or a package). It returns "" for any other file.
// Nothing here is run at build time; such a hook would run in every
// program in the image, so it is installed only if the operator asks.
func startupHook(dest string) string {
	top, _, nested := strings.Cut(dest, "/")
	if !nested && strings.HasSuffix(strings.ToLower(top), ".pth") {
		return "a .pth file, which Python's site runs at every start"
	}
	module, _, _ := strings.Cut(top, ".")
	if module == "sitecustomize" || module == "usercustomize" {
		return "module " + module + ", which Python's site imports at every start"
	}
	return ""
}
