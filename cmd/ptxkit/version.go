package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

func init() {
	commands["version"] = command{"print ptxkit's module version and VCS revision", runVersion}
}

// buildVersion is what the binary knows about the code it was built from:
// the module version ("(devel)" for a build inside the repository, a tag
// such as v1.2.0 for go install of a release) and the VCS stamp go build
// records (-buildvcs, on by default in a repository).
type buildVersion struct {
	Module   string // module version, "(devel)" or a semantic version
	Revision string // VCS commit id, "" when not stamped
	Time     string // commit time (RFC 3339), "" when not stamped
	Modified bool   // the working tree had uncommitted changes
	Go       string // toolchain version
}

// readBuildVersion reads the running binary's build information.
func readBuildVersion() buildVersion {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return buildVersion{Module: "(unknown)", Go: runtime.Version()}
	}
	return buildVersionOf(bi)
}

func buildVersionOf(bi *debug.BuildInfo) buildVersion {
	v := buildVersion{Module: bi.Main.Version, Go: bi.GoVersion}
	if v.Module == "" {
		v.Module = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String formats v as one line: "ptxkit VERSION [revision REV[+modified]
// TIME] GO".
func (v buildVersion) String() string {
	var b strings.Builder
	b.WriteString("ptxkit " + v.Module)
	if v.Revision != "" {
		b.WriteString(" revision " + v.revision())
		if v.Time != "" {
			b.WriteString(" " + v.Time)
		}
	}
	if v.Go != "" {
		b.WriteString(" " + v.Go)
	}
	return b.String()
}

// revision is the commit id with "+modified" for a dirty tree, "" when
// unknown.
func (v buildVersion) revision() string {
	if v.Revision != "" && v.Modified {
		return v.Revision + "+modified"
	}
	return v.Revision
}

// runVersion implements "ptxkit version" (and "ptxkit --version").
func runVersion(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cl := newCommandLine("version", "usage: ptxkit version\n\nPrints the module version, the VCS revision and the Go version ptxkit was built with.")
	pos, status, ok := cl.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	if len(pos) > 0 {
		cl.failf(stderr, "takes no arguments, got %q", pos[0])
		return exitUsage
	}
	fmt.Fprintln(stdout, readBuildVersion())
	return exitOK
}
