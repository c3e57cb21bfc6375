package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
)

// Program is how a binary built on this package names itself in the
// commands it prints (the regenerate line of fuzz, the reproduce commands
// of a report, the hints of the step-through UI) and how a reader installs
// it. A binary of your own that calls Main prints its own name, not
// "demi": the commands it prints are the ones that know your system.
type Program struct {
	// Name is the command name, as typed in a shell: "demi", "mydemi".
	Name string
	// Install is the shell command that installs the binary, such as
	// "go install github.com/demi-project/demi/cmd/demi@latest".
	Install string
}

// Demi is the stock demi binary, cmd/demi: Run and New use it unless told
// otherwise with As.
var Demi = Program{Name: "demi", Install: "go install ./cmd/demi   # in a checkout of github.com/demi-project/demi"}

// ThisProgram describes the running binary: its name is the base name it
// was started by (os.Args[0]), its install line comes from the build
// information Go embeds. Main uses it.
func ThisProgram() Program {
	info, _ := debug.ReadBuildInfo()
	return programOf(os.Args[0], info)
}

// programOf derives a Program from the path a binary was started by and
// its build information (nil when there is none).
//
// A binary built from a tagged version installs with `go install
// PKG@VERSION`. One built by go run or go build in a checkout has the
// version "(devel)" or a pseudo-version (which a proxy serves only for a
// pushed revision, never with "+dirty"); it installs from a checkout of
// its module with `go install ./DIR`.
func programOf(arg0 string, info *debug.BuildInfo) Program {
	name := strings.TrimSuffix(filepath.Base(arg0), ".exe")
	if name == "" || name == "." || name == string(filepath.Separator) {
		name = Demi.Name
	}
	p := Program{Name: name}
	if info == nil || info.Main.Path == "" ||
		(info.Path != info.Main.Path && !strings.HasPrefix(info.Path, info.Main.Path+"/")) {
		return p // go run of a file, a test binary: nothing installable to name
	}
	if v := info.Main.Version; released.MatchString(v) && !pseudo.MatchString(v) {
		p.Install = "go install " + info.Path + "@" + v
		return p
	}
	p.Install = "go install ." + strings.TrimPrefix(info.Path, info.Main.Path) + "   # in a checkout of " + info.Main.Path
	return p
}

var (
	// released is a module version, pseudo or not, without "+dirty".
	released = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+incompatible)?$`)
	// pseudo is a pseudo-version: Go derives one from a revision, and a
	// proxy serves it only when the revision was pushed.
	pseudo = regexp.MustCompile(`[0-9]{14}-[0-9a-f]{12}(\+incompatible)?$`)
)

// An Option changes how New and Run build the command line.
type Option func(*env)

// As makes the command line print p's name and install line in the
// commands it shows (default: Demi).
func As(p Program) Option { return func(e *env) { e.prog = p } }
