package gatehouse

import (
	"runtime/debug"
)

// version, when set at build time, names the build instead of what the Go
// toolchain recorded:
//
//	go build -ldflags "-X github.com/gatehouse/gatehouse.version=v1.4.0" ./cmd/gatehouse
var version string

// Version names the running build, as `gatehouse version`, /healthz and the
// start-up log line show it: the -ldflags override if one was given, else
// the main module's version (a release tag, or the pseudo-version the
// toolchain derives from the commit, "+dirty" when the work tree had
// changes), else the VCS revision and whether the tree was modified, else
// "devel" (a test binary, or a build outside version control).
func Version() string { return buildVersion }

// buildVersion is read once, when the program starts: the build
// information does not change while it runs.
var buildVersion = func() string {
	info, _ := debug.ReadBuildInfo()
	return versionOf(version, info)
}()

func versionOf(override string, info *debug.BuildInfo) string {
	if override != "" {
		return override
	}
	if info == nil {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var revision, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if revision == "" {
		return "devel"
	}
	if len(revision) > 12 {
		revision = revision[:12]
	}
	if modified == "true" {
		revision += "+dirty"
	}
	return revision
}
