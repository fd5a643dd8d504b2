package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Policy is what the helper enforces for one command. It travels to the
// helper as one JSON argument (it holds no secret).
type Policy struct {
	Mode Mode `json:"mode"`
	// Workspace is the absolute directory the command works in; readable,
	// and writable in the write modes.
	Workspace string `json:"workspace"`
	// Protected are absolute paths that stay read-only even in the write
	// modes (agent.yaml, agent/tools, skills, agent/mcp, .git/config,
	// .git/hooks), so a sandboxed command cannot plant code that later
	// runs unsandboxed.
	Protected []string `json:"protected,omitempty"`
	// HostOwned are the host's own directories and files (its binaries,
	// the sandbox helper, plugins, installed packages, state and
	// configuration directories): those inside the workspace stay
	// read-only in the write modes, their parents pinned like a protected
	// path's, with the Writable paths and TmpDir under them writable again.
	HostOwned []string `json:"host_owned,omitempty"`
	// HostPrivate are host-owned directories whose content is the host's
	// own (the state directory: its store, keys, logs and socket tokens):
	// inside the workspace, everything in them is hidden from the command
	// but its Writable, ReadOnly and TmpDir paths there.
	HostPrivate []string `json:"host_private,omitempty"`
	// ReadOnly are extra absolute paths readable (and executable) by the
	// command: a toolchain, a module cache. System directories are always
	// readable (SystemReadPaths).
	ReadOnly []string `json:"read_only,omitempty"`
	// Writable are extra absolute paths writable by the command, e.g. a
	// build cache the launcher chose. Never the home directory.
	Writable []string `json:"writable,omitempty"`
	// TmpDir is a private, launcher-created directory: the only place the
	// command can write in read-only mode, given to it as TMPDIR. (It is
	// not mounted over /tmp: workspaces often live under /tmp.)
	TmpDir string `json:"tmp_dir"`
	// HostNetNS and HostMntNS are the launcher's namespace inodes, so the
	// helper can check it really runs in new ones (0: not checked).
	HostNetNS uint64 `json:"host_netns,omitempty"`
	// Helper is where the launcher finds the helper when it is not beside
	// the launcher (the host passes its own); the helper ignores it.
	Helper    string `json:"helper,omitempty"`
	HostMntNS uint64 `json:"host_mntns,omitempty"`
	// Hidden are the workspace's sensitive paths as the launcher found
	// them (SensitiveCached); HiddenListed says the list was made, so an
	// empty list means "none" and not "not looked". Unlisted, the helper
	// walks the workspace itself.
	Hidden []string `json:"hidden,omitempty"`
	// Cwd is the command's working directory by path, when the launcher
	// starts it from a descriptor (see reanchorCwd); "" means the path
	// the helper finds itself in.
	Cwd          string `json:"cwd,omitempty"`
	HiddenListed bool   `json:"hidden_listed,omitempty"`
	// MaxProcs bounds the processes and threads of the command at once
	// (0: DefaultMaxProcs); TmpMiB is the size of its private TMPDIR, a
	// tmpfs of its own (0: DefaultTmpMiB). The operator sets both.
	MaxProcs int `json:"max_procs,omitempty"`
	TmpMiB   int `json:"tmp_mib,omitempty"`
	// Proxy is the unix socket of the host's egress proxy (network mode):
	// the command then runs in a network namespace of its own whose only
	// way out is that proxy, which the helper exposes inside on
	// 127.0.0.1 (see forwarder_linux.go) and names in the proxy
	// environment variables. Network mode without it is refused.
	Proxy string `json:"proxy,omitempty"`
	// Watched are paths inside the workspace that the launcher's
	// configuration names and that do not exist yet (a file the
	// repository's git configuration includes, its hooks directory): a
	// mount cannot hold them, so one a command creates is moved aside when
	// it ends, like git's own entries (creation_linux.go).
	Watched []string `json:"watched,omitempty"`
	// HelperEnv are environment entries the launcher added for the
	// helper's own start (see forHelper); the helper removes them, so the
	// command gets the environment its launcher gave it.
	HelperEnv []string `json:"helper_env,omitempty"`
}

// maxPidMax is the kernel's largest pid_max (PID_MAX_LIMIT on 64 bits).
const maxPidMax = 4 << 20

// Validate reports a policy the helper must refuse.
func (p Policy) Validate() error {
	if _, ok := rank[p.Mode]; !ok {
		return fmt.Errorf("sandbox policy: unknown mode %q", p.Mode)
	}
	if p.Mode == Off {
		return nil
	}
	if p.Workspace == "" || !filepath.IsAbs(p.Workspace) {
		return fmt.Errorf("sandbox policy: workspace %q must be an absolute path", p.Workspace)
	}
	if p.TmpDir == "" || !filepath.IsAbs(p.TmpDir) {
		return fmt.Errorf("sandbox policy: tmp_dir %q must be an absolute path", p.TmpDir)
	}
	for _, h := range p.Hidden {
		if !within(filepath.Clean(p.Workspace), filepath.Clean(h)) {
			return fmt.Errorf("sandbox policy: hidden path %q is outside the workspace", h)
		}
	}
	for _, w := range p.Watched {
		if !filepath.IsAbs(w) || !within(filepath.Clean(p.Workspace), filepath.Clean(w)) || filepath.Clean(w) == filepath.Clean(p.Workspace) {
			return fmt.Errorf("sandbox policy: watched path %q must be an absolute path inside the workspace", w)
		}
	}
	if p.MaxProcs != 0 && (p.MaxProcs < MinMaxProcs || p.MaxProcs > maxPidMax-1) {
		return fmt.Errorf("sandbox policy: max_procs %d must lie between %d and %d", p.MaxProcs, MinMaxProcs, maxPidMax-1)
	}
	if p.TmpMiB < 0 || p.TmpMiB > 1<<20 {
		return fmt.Errorf("sandbox policy: tmp_mib %d must lie between 1 and %d", p.TmpMiB, 1<<20)
	}
	if p.Mode == Network && p.Proxy == "" {
		return fmt.Errorf("sandbox policy: network mode needs the host's egress proxy (proxy), and has none; the command would reach any address, so it is refused")
	}
	if p.Proxy != "" && (p.Mode != Network || !filepath.IsAbs(p.Proxy)) {
		return fmt.Errorf("sandbox policy: proxy %q must be an absolute socket path, in network mode only", p.Proxy)
	}
	if err := validHelperEnv(p.HelperEnv); err != nil {
		return err
	}
	if p.Cwd != "" && !filepath.IsAbs(p.Cwd) {
		return fmt.Errorf("sandbox policy: cwd %q must be an absolute path", p.Cwd)
	}
	for _, list := range [][]string{p.Protected, p.HostOwned, p.HostPrivate, p.ReadOnly, p.Writable, p.Hidden} {
		for _, q := range list {
			if !filepath.IsAbs(q) {
				return fmt.Errorf("sandbox policy: path %q must be absolute", q)
			}
		}
	}
	return nil
}

// Encode is the policy as the helper's --policy argument.
func (p Policy) Encode() (string, error) {
	if err := p.Validate(); err != nil {
		return "", err
	}
	b, err := json.Marshal(p)
	return string(b), err
}

// DecodePolicy reads the helper's --policy argument; unknown fields are an
// error, so a newer launcher's restriction is never silently dropped.
func DecodePolicy(s string) (Policy, error) {
	var p Policy
	if s == "" {
		return p, errors.New("sandbox policy: empty")
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, fmt.Errorf("sandbox policy: %w", err)
	}
	return p, p.Validate()
}
