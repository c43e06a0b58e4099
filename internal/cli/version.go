package cli

import (
	"context"
	"runtime"

	"github.com/gatehouse/gatehouse"
)

// versionRecord is what version prints with --json.
type versionRecord struct {
	Version string `json:"version"`
	Go      string `json:"go"`
}

// runVersion prints the build's version (gatehouse.Version), the same one
// /healthz answers and serve logs when it starts. It opens no database.
func runVersion(_ context.Context, e *env) error {
	f := newFlags(e, "version")
	if _, err := f.parse(0); err != nil {
		return err
	}
	v := versionRecord{Version: gatehouse.Version(), Go: runtime.Version()}
	return f.print(v, "gatehouse %s (%s)", v.Version, v.Go)
}
