package cli

import (
	"bytes"
	"context"
	"github.com/demi-project/demi/record"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestVersionOf(t *testing.T) {
	mod := debug.Module{Path: "github.com/demi-project/demi", Version: "(devel)"}
	vcs := []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "067861cc5e3d7f33b980a94eafcd920d10b0da90"},
		{Key: "vcs.time", Value: "2026-11-25T23:39:59Z"},
		{Key: "vcs.modified", Value: "true"},
	}
	cases := []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"go install module@version",
			debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: mod.Path, Version: "v0.3.0"}},
			"github.com/demi-project/demi v0.3.0 go1.26.8"},
		{"built in a checkout",
			debug.BuildInfo{GoVersion: "go1.26.8", Main: mod, Settings: vcs},
			"github.com/demi-project/demi (devel) vcs 067861cc5e3d+dirty 2026-11-25T23:39:59Z go1.26.8"},
		{"clean checkout",
			debug.BuildInfo{GoVersion: "go1.26.8", Main: mod, Settings: vcs[:3]},
			"github.com/demi-project/demi (devel) vcs 067861cc5e3d 2026-11-25T23:39:59Z go1.26.8"},
		{"pseudo-version from the checkout",
			debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: mod.Path, Version: "v0.0.0-20261125233959-067861cc5e3d+dirty"}, Settings: vcs},
			"github.com/demi-project/demi v0.0.0-20261125233959-067861cc5e3d+dirty go1.26.8"},
		{"no main module",
			debug.BuildInfo{GoVersion: "go1.26.8", Path: "command-line-arguments"},
			"command-line-arguments (devel) go1.26.8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, versionOf(&c.info))
		})
	}
}

func TestVersionFlag(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), record.NewCatalog(), []string{"--version"}, &out, &errb)
	assert.Equal(t, ExitOK, code, errb.String())
	assert.Equal(t, "demi "+Version()+"\n", out.String())
	assert.Regexp(t, `^demi github\.com/demi-project/demi `, out.String())
}
