// Package sandbox confines the commands Demiurge runs: Landlock for the
// file system (and TCP where the ABI has it), a seccomp filter for system
// calls, and user, mount and network namespaces where the kernel offers
// them. The launcher side (Wrap) rewrites an exec.Cmd so that it starts
// through the re-exec helper (bin/demiurge-sandbox); the helper side
// (Enforce) restricts the helper itself and then execs the target, so host
// and plugins are never restricted. What the kernel enforces is detected,
// never assumed (Detect, Missing).
package sandbox

import (
	"fmt"
	"strings"
)

// Mode is how much a sandboxed command may do.
type Mode string

const (
	// ReadOnly reads where programs need to, writes only its private
	// temporary directory, and has no network.
	ReadOnly Mode = "read-only"
	// WorkspaceWrite also writes the workspace, except the protected
	// paths (agent core, .git/config, .git/hooks); no network.
	WorkspaceWrite Mode = "workspace-write"
	// Network is WorkspaceWrite plus outbound TCP (and UDP for DNS).
	Network Mode = "network"
	// Off runs the command unconfined; only the operator may choose it.
	Off Mode = "off"
)

// rank orders modes from the most confined to the least.
var rank = map[Mode]int{ReadOnly: 0, WorkspaceWrite: 1, Network: 2, Off: 3}

// ParseMode reads a mode name as written in agent.yaml or --sandbox.
func ParseMode(s string) (Mode, error) {
	m := Mode(strings.TrimSpace(s))
	if _, ok := rank[m]; !ok {
		return "", fmt.Errorf("unknown sandbox mode %q (want read-only, workspace-write, network or off)", s)
	}
	return m, nil
}

// Tighter returns the more confined of two modes: the operator and the
// core can each tighten, neither can loosen what the other set.
func Tighter(a, b Mode) Mode {
	if rank[b] < rank[a] {
		return b
	}
	return a
}

// Offline reports whether the mode forbids the network.
func (m Mode) Offline() bool { return m == ReadOnly || m == WorkspaceWrite }

// WritesWorkspace reports whether the mode may write the workspace.
func (m Mode) WritesWorkspace() bool { return m == WorkspaceWrite || m == Network }
