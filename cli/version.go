package cli

import (
	"runtime/debug"
	"strings"
)

// Version describes the running binary, as `demi --version` prints it: the
// main module's path and version, then the version control revision and
// time when the binary was built from a checkout, with "+dirty" when that
// checkout had uncommitted changes. A binary built by `go install
// module@version` reports that version; one built inside a checkout
// reports "(devel)" and its revision.
//
//	github.com/demi-project/demi v0.3.0
//	github.com/demi-project/demi (devel) vcs 067861c1e2a4+dirty 2026-11-26T05:03:12Z
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (built without module support)"
	}
	return versionOf(info)
}

func versionOf(info *debug.BuildInfo) string {
	path, version := info.Main.Path, info.Main.Version
	if path == "" { // a test binary or go run of a file: no main module
		path = info.Path
	}
	if version == "" {
		version = "(devel)"
	}
	parts := []string{path, version}
	var rev, at string
	var dirty bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "+dirty"
		}
		parts = append(parts, "vcs", rev)
		if at != "" {
			parts = append(parts, at)
		}
	}
	parts = append(parts, info.GoVersion)
	return strings.Join(parts, " ")
}
