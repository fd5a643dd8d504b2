// Package sandboxing is the host's view of the OS sandbox: which mode a
// command gets (from the core, the operator, and whether it was approved)
// and what the kernel can enforce, reported honestly.
package sandboxing

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"demiurge.dev/shared/sandbox"
)

// HelperName is the re-exec helper's file name, beside the host binary.
const HelperName = "demiurge-sandbox"

// HelperPath is the helper in dir, or "" when it is not there (or not an
// executable file).
func HelperPath(dir string) string {
	p := filepath.Join(dir, HelperName)
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		return ""
	}
	return p
}

// Status is what `demiurge sandbox status` prints.
type Status struct {
	Helper      string          `json:"helper"`
	LandlockABI int             `json:"landlock_abi"`
	Rules       map[string]bool `json:"rules"`
	Seccomp     bool            `json:"seccomp"`
	UserNS      bool            `json:"user_namespaces"`
	MountNS     bool            `json:"mount_namespaces"`
	NetNS       bool            `json:"network_namespaces"`
	// Requested is the mode approved commands ask for; Effective is what
	// is enforced for them ("none" when the kernel lacks something, and
	// then they cannot run sandboxed).
	Requested sandbox.Mode `json:"requested_mode"`
	Effective string       `json:"effective_mode"`
	// Unasked is the mode of commands that run without approval, always
	// read-only, or "none" (they then ask instead).
	Unasked string `json:"unasked_mode"`
	// Network is what a call approved for network access (`network:
	// true`) gets, exactly as enforced.
	Network string `json:"network_calls"`
	// Limits are what bounds every sandboxed command (the operator's, or
	// the defaults).
	Limits Limits `json:"limits"`
	// Toolchains are the paths every command may read and execute besides
	// the system's (the PATH's toolchains and DEMIURGE_SANDBOX_READ).
	Toolchains []string `json:"toolchain_paths"`
	Missing    []string `json:"missing,omitempty"`
	Notes      []string `json:"notes,omitempty"`
	// Packages says how an installed package's plugin runs: confined, or
	// refused (or unconfined, when the operator allowed it) where the
	// kernel cannot confine it.
	Packages string `json:"package_plugins"`
	// Toolsets says the same of a toolset plugin installed by path.
	Toolsets string `json:"installed_plugins"`
}

// toolsetsLine is Status.Toolsets for what the kernel enforces.
func toolsetsLine(s sandbox.Support) string {
	if miss := sandbox.PluginMissing(s); len(miss) > 0 {
		if sandbox.ToolsetsAllowedUnconfined() {
			return "unconfined (the kernel lacks " + strings.Join(miss, ", ") + "; the operator set " + sandbox.EnvAllowUnconfinedToolsets + "=1)"
		}
		return "refused to start (the kernel lacks " + strings.Join(miss, ", ") + "; " + sandbox.EnvAllowUnconfinedToolsets + "=1 runs them unconfined)"
	}
	return "confined (Landlock, seccomp): read the workspace (write it when a tool declares a write) and the system's programs and libraries; never the state directory or the home's configuration; no IP socket (the egress proxy when a tool declares the network); unconfined where the operator chose it at install (plugins install --unconfined); `plugins list` says each one's"
}

// packagesLine is Status.Packages for what the kernel enforces.
func packagesLine(s sandbox.Support) string {
	if miss := sandbox.PluginMissing(s); len(miss) > 0 {
		if sandbox.PackagesAllowedUnconfined() {
			return "unconfined (the kernel lacks " + strings.Join(miss, ", ") + "; the operator set " + sandbox.EnvAllowUnconfinedPackages + "=1)"
		}
		return "refused to start (the kernel lacks " + strings.Join(miss, ", ") + "; " + sandbox.EnvAllowUnconfinedPackages + "=1 runs them unconfined)"
	}
	list, err := sandbox.PackagePorts()
	if err != nil {
		return "refused to start: " + err.Error()
	}
	ports := make([]string, len(list))
	for i, p := range list {
		ports[i] = strconv.Itoa(int(p))
	}
	return "confined (Landlock, seccomp): no home, workspace or state; writes only their own runtime directory; no IP socket: only through the host's egress proxy to public addresses on ports " + strings.Join(ports, ",")
}

// Report detects what this kernel enforces through helper and compares
// it with what mode needs.
func Report(helper string, mode sandbox.Mode) Status {
	st := Status{Helper: helper, Requested: mode}
	limits, err := LimitsFromEnv(os.Getenv)
	if err != nil {
		st.Notes = append(st.Notes, err.Error())
	}
	st.Limits = limits.Effective()
	st.Toolchains = ToolchainPaths(os.Getenv("PATH"), os.Getenv(EnvRead))
	if helper == "" {
		st.Missing = []string{"the sandbox helper " + HelperName + " (build it: make build)"}
		st.Effective, st.Unasked = "none", "none"
		st.Network = NetworkCalls(mode, false)
		st.Packages = packagesLine(sandbox.KernelSupport())
		st.Toolsets = toolsetsLine(sandbox.KernelSupport())
		return st
	}
	s := sandbox.Detect(helper)
	st.Packages = packagesLine(s)
	st.Toolsets = toolsetsLine(s)
	st.LandlockABI, st.Rules, st.Seccomp = s.LandlockABI, s.Rules(), s.Seccomp
	st.UserNS, st.MountNS, st.NetNS = s.UserNS, s.MountNS, s.NetNS
	st.Missing = s.Missing(mode)
	st.Effective = effective(s, mode)
	st.Unasked = effective(s, sandbox.ReadOnly)
	st.Network = NetworkCalls(mode, effective(s, sandbox.Network) != "none")
	if ro := s.Missing(sandbox.ReadOnly); len(ro) > 0 && len(st.Missing) == 0 {
		st.Missing = ro
	}
	for _, n := range []string{s.LandlockError, s.NSError, s.Forced} {
		if n != "" && !containsString(st.Notes, n) {
			st.Notes = append(st.Notes, n)
		}
	}
	if !s.UDP {
		st.Notes = append(st.Notes, "landlock cannot restrict UDP at this ABI: offline modes refuse UDP sockets by seccomp and run in a private network namespace")
	}
	if !s.FSResolveUnix {
		st.Notes = append(st.Notes, "landlock cannot restrict connecting to pathname unix sockets at this ABI (needs 9): seccomp refuses creating AF_UNIX sockets instead (socketpair stays allowed)")
	}
	sort.Strings(st.Missing)
	return st
}

func effective(s sandbox.Support, m sandbox.Mode) string {
	if _, err := s.Enforced(m); err != nil {
		return "none"
	}
	return string(m)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// NetworkCalls says what a call approved for network access gets in a
// session whose mode is m, given whether mode network is enforceable.
func NetworkCalls(m sandbox.Mode, enforceable bool) string {
	switch {
	case m == sandbox.Off:
		return "unconfined (sandbox off): the network is reachable by every command"
	case m == sandbox.ReadOnly:
		return "refused: the session's mode read-only has no network"
	case !enforceable:
		return "none: mode network cannot be enforced here"
	}
	eg, err := EgressFromEnv(os.Getenv)
	if err != nil {
		return "refused: " + err.Error()
	}
	return "asks every time; then " + eg.Reach()
}
