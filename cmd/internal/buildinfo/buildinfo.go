// Package buildinfo is what `demiurge --version` and `demiurge version`
// print, shared by the full CLI (bin/demiurge-host) and the launcher
// (bin/demiurge), which answers --version itself.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"demiurge.dev/shared/protocolversion"
)

// Version is this build's semantic version; commit may be set by the
// Makefile (-ldflags "-X demiurge.dev/cmd/internal/buildinfo.commit=..."),
// else it comes from the VCS stamp Go records in the binary.
var (
	Version = "0.1.0"
	commit  = ""
)

// Info is what `demiurge version --json` prints.
type Info struct {
	Version       string `json:"version"`
	Commit        string `json:"commit"`
	Modified      bool   `json:"modified,omitempty"`
	Protocol      int    `json:"protocol"`
	ProtocolMinor int    `json:"protocol_minor"`
	GoVersion     string `json:"go_version"`
	Platform      string `json:"platform"`
}

// Current is this binary's build.
func Current() Info {
	b := Info{Version: Version, Commit: commit, Protocol: protocolversion.Version,
		ProtocolMinor: protocolversion.Minor, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && b.Commit == "":
				b.Commit = s.Value
			case s.Key == "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	if len(b.Commit) > 12 {
		b.Commit = b.Commit[:12]
	}
	if b.Commit == "" {
		b.Commit = "unknown"
	}
	return b
}

// String is the one line `--version` and `version` print.
func (b Info) String() string {
	dirty := ""
	if b.Modified {
		dirty = "+dirty"
	}
	return fmt.Sprintf("demiurge %s (commit %s%s, protocol %d.%d, %s %s)",
		b.Version, b.Commit, dirty, b.Protocol, b.ProtocolMinor, b.GoVersion, b.Platform)
}
