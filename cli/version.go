package cli

import (
	"runtime/debug"
	"strings"
)

// Version describes the running binary, as `demi --version` prints it: the
// main module's path and version, then, when the binary was built from a
// checkout and the version does not already name it, the version control
// revision and time, with "+dirty" when that checkout had uncommitted
// changes, then the Go version. A binary built by `go install
// module@version` reports that version; one built inside a checkout the
// pseudo-version Go derives from the revision; one built by `go run` or
// without version control stamping "(devel)".
//
//	github.com/demi-project/demi v0.3.0 go1.26.8
//	github.com/demi-project/demi v0.0.0-20261126054545-b5d366f397f4 go1.26.8
//	github.com/demi-project/demi (devel) vcs 067861cc5e3d+dirty 2026-11-25T23:39:59Z go1.26.8
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
	if len(rev) > 12 {
		rev = rev[:12]
	}
	// Go names a build from a checkout with a pseudo-version that already
	// holds the revision (and +dirty): then say it once.
	if rev != "" && !strings.Contains(version, rev) {
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
