package gatehouse

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	vcs := func(main string, settings ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/gatehouse/gatehouse", Version: main}}
		for i := 0; i+1 < len(settings); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return info
	}
	const rev = "54b3ee9a0c1d2e3f405162738495a6b7c8d9e0f1"
	for _, c := range []struct {
		name, override string
		info           *debug.BuildInfo
		want           string
	}{
		{"override wins", "v9.9.9", vcs("v1.0.0"), "v9.9.9"},
		{"release", "", vcs("v1.2.0"), "v1.2.0"},
		{"pseudo-version of a dirty tree", "", vcs("v0.0.0-20261123154551-54b3ee9a0c1d+dirty"), "v0.0.0-20261123154551-54b3ee9a0c1d+dirty"},
		{"revision", "", vcs("(devel)", "vcs.revision", rev, "vcs.modified", "false"), "54b3ee9a0c1d"},
		{"dirty revision", "", vcs("(devel)", "vcs.revision", rev, "vcs.modified", "true"), "54b3ee9a0c1d+dirty"},
		{"no version control", "", vcs("(devel)"), "devel"},
		{"no build information", "", nil, "devel"},
	} {
		if got := versionOf(c.override, c.info); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
