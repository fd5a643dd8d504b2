package plugins

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/go-plugin/runner"
	"golang.org/x/sys/unix"

	"demiurge.dev/host/egress"
	"demiurge.dev/host/sandboxing"
	"demiurge.dev/shared/netpolicy"
	"demiurge.dev/shared/sandbox"
)

// Installed packages' plugins are third-party code the host fetched by
// name, and toolset plugins the operator installed by path (`plugins
// install`) are third-party code too: both run confined
// (docs/architecture.md, "Package plugins run confined"). Only the host's
// own toolsets beside its binary run as the host does.

// EnvAllowUnconfinedPackages is the operator's switch, read from the
// host's environment only (never agent.yaml, never a package): set to 1,
// a package's plugin starts unconfined where the kernel cannot confine it.
// Without it such a start is refused.
const EnvAllowUnconfinedPackages = sandbox.EnvAllowUnconfinedPackages

// EnvPackagePorts lists the TCP ports a confined package may reach
// through its egress proxy (sandbox.PackagePorts).
const EnvPackagePorts = sandbox.EnvPackagePorts

// EnvAllowUnconfinedToolsets is the operator's switch for toolset plugins
// installed by path, as EnvAllowUnconfinedPackages is for packages.
const EnvAllowUnconfinedToolsets = sandbox.EnvAllowUnconfinedToolsets

// kernelSupport is what the kernel enforces; tests pretend it lacks
// Landlock.
var kernelSupport = sandbox.KernelSupport

// confinement is how one confined start runs.
type confinement struct {
	policy  sandbox.PluginPolicy
	support sandbox.Support
	home    string // HOME
	tmp     string // TMPDIR and the go-plugin socket directory's parent
	// dir is the plugin's working directory.
	dir string
	// egress is what the plugin's egress proxy lets through; proxy is
	// that proxy once the runner started it (the plugin's only way out).
	// open starts one although egress names no host (a toolset plugin's
	// tools declared the network: the operator's egress settings, as a
	// network-mode command's).
	egress egress.Config
	open   bool
	proxy  *egress.Proxy
	// toolset is a plugin installed by path, confined to access.
	toolset bool
	access  Access
}

// PackageRuntime is the directory under which each package's plugin gets
// its private runtime directory, beside the runtime home home.
func PackageRuntime(home string) string {
	if home == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(home), "packages")
}

// confinementFor says how c runs: nil when it runs unconfined (not a
// package, or the operator allowed an unconfinable kernel), an error when
// it must not start.
func (cfg launchConfig) confinementFor(c Candidate, img *image) (*confinement, error) {
	if c.Package == "" {
		if c.Origin != OriginInstalled {
			return nil, nil // the host's own, beside its binary
		}
		return cfg.toolsetConfinement(c, img)
	}
	s := kernelSupport()
	if miss := sandbox.PluginMissing(s); len(miss) > 0 {
		if sandbox.PackagesAllowedUnconfined() {
			cfg.log.Warn("package plugin runs unconfined: the kernel cannot confine it and the operator allowed it", "plugin", c.Name, "missing", strings.Join(miss, ", "))
			return nil, nil
		}
		return nil, fmt.Errorf("toolset plugin %s is an installed package and was not started: this kernel cannot confine it (it lacks %s); the operator can allow packages to run unconfined with %s=1 in the host's environment", c.Name, strings.Join(miss, ", "), EnvAllowUnconfinedPackages)
	}
	ports, err := sandbox.PackagePorts()
	if err != nil {
		return nil, fmt.Errorf("toolset plugin %s was not started: %w", c.Name, err)
	}
	// Its only way out: the host's egress proxy, to the public addresses
	// of the hosts its package.json declared (the lock's copy, made at
	// install) on the operator's package ports, plus the operator's exact
	// allowances of refused addresses (the same as network-mode
	// commands'). A package that declared none gets no proxy at all.
	ec := egress.Config{OperatorName: "the hosts package " + c.Package + " declared (package.json egress)"}
	for _, h := range c.Egress {
		r, err := egress.ParseRule(h)
		if err != nil || r.Host == "*" || r.Port != 0 {
			return nil, fmt.Errorf("toolset plugin %s was not started: its declared egress host %q is not a host name", c.Name, h)
		}
		for _, port := range ports {
			ec.Operator = append(ec.Operator, egress.Rule{Host: r.Host, Port: port})
		}
	}
	if ec.Allow, err = egress.ParseAllowances(os.Getenv(sandboxing.EnvEgressAddr)); err != nil {
		return nil, fmt.Errorf("toolset plugin %s was not started: %s: %w", c.Name, sandboxing.EnvEgressAddr, err)
	}
	root := PackageRuntime(cfg.home)
	if root == "" {
		return nil, fmt.Errorf("toolset plugin %s was not started: no runtime directory to confine it to", c.Name)
	}
	home := filepath.Join(root, c.Name)
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("toolset plugin %s: runtime directory: %w", c.Name, err)
	}
	if fi, err := os.Lstat(home); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("toolset plugin %s: runtime directory %s is not a directory", c.Name, home)
	}
	tmp, err := pluginTemp(c.Name)
	if err != nil {
		return nil, err
	}
	p := sandbox.PluginPolicy{Private: home, Tmp: tmp}
	if img.direct != nil {
		p.Binary = c.Path // the child executes the installed file itself
	}
	return &confinement{policy: p, support: s, home: home, tmp: tmp, dir: home, egress: ec}, nil
}

// pluginTemp is a fresh TMPDIR for one start (0700, a random name),
// removed when the plugin ends: short, since go-plugin's socket path
// inside it must fit a unix socket's 107 bytes (a state directory under a
// long home did not).
func pluginTemp(name string) (string, error) {
	base := os.TempDir()
	if len(base) > 40 {
		base = "/tmp"
	}
	tmp, err := os.MkdirTemp(base, "demiurge-pkg-")
	if err != nil {
		return "", fmt.Errorf("toolset plugin %s: temporary directory: %w", name, err)
	}
	return tmp, nil
}

// toolsetConfinement confines a toolset plugin the operator installed by
// path: it reads its workspace (writes it only when its tools declared a
// write, as its install record says) and the system's programs and
// libraries, never the state directory or the home's configuration even
// inside the workspace, has a fresh private directory as HOME and TMPDIR,
// and opens no IP socket: when its tools declared the network, its way
// out is the host's egress proxy under the operator's egress settings.
func (cfg launchConfig) toolsetConfinement(c Candidate, img *image) (*confinement, error) {
	rec, recorded := installRecord(c)
	if recorded && rec.Unconfined {
		cfg.log.Info("toolset plugin runs unconfined: the operator's choice at install", "plugin", c.Name, "sha256", c.Recorded)
		return nil, nil
	}
	s := kernelSupport()
	if miss := sandbox.PluginMissing(s); len(miss) > 0 {
		if sandbox.ToolsetsAllowedUnconfined() {
			cfg.log.Warn("toolset plugin runs unconfined: the kernel cannot confine it and the operator allowed it", "plugin", c.Name, "missing", strings.Join(miss, ", "))
			return nil, nil
		}
		return nil, fmt.Errorf("toolset plugin %s was installed by path and was not started: this kernel cannot confine it (it lacks %s); the operator can allow such plugins to run unconfined with %s=1 in the host's environment", c.Name, strings.Join(miss, ", "), EnvAllowUnconfinedToolsets)
	}
	access := grantedAccess(c)
	if recorded && rec.legacy {
		cfg.log.Warn("toolset plugin's install record predates its access: it reads its workspace only and has no network; demiurge plugins access "+c.Name+" records what its tools declare", "plugin", c.Name)
	}
	var ec egress.Config
	if access.Network {
		e, err := sandboxing.EgressFromEnv(os.Getenv)
		if err != nil {
			return nil, fmt.Errorf("toolset plugin %s was not started: %w", c.Name, err)
		}
		ec = e.Config()
		ec.OperatorName = "the operator's egress allowlist (" + sandboxing.EnvEgressAllow + ")"
	}
	hidden := cfg.hidden()
	if cfg.workspace != "" {
		// The workspace's sensitive files (.env, keys), as a command's
		// sandbox hides them: the host asks before a tool reads one, and
		// a plugin opening one itself, whatever its arguments said, would
		// pass that by. A workspace too large to scan is refused, as the
		// sandbox refuses it, rather than half hidden.
		sensitive, err := sandbox.SensitiveCached(cfg.workspace)
		if err != nil {
			return nil, fmt.Errorf("toolset plugin %s was not started: %w", c.Name, err)
		}
		hidden = append(hidden, sensitive...)
	}
	tmp, err := pluginTemp(c.Name)
	if err != nil {
		return nil, err
	}
	p := sandbox.PluginPolicy{Private: tmp, Tmp: tmp, Toolset: true, Workspace: cfg.workspace, WorkspaceWrite: access.WorkspaceWrite, Hidden: hidden}
	if access.WorkspaceWrite && cfg.workspace != "" {
		// What every sandboxed program finds read-only in the write modes
		// (git's configuration and hooks, the clients' configuration, what
		// the repository's configuration names; those missing too, so that
		// none is made), the core's files and the host's own.
		held, watched := sandboxing.WorkspaceProtected(cfg.workspace)
		p.ReadOnly = slices.Concat(held, watched, cfg.held)
	}
	if cfg.state != "" {
		// A call's bulk output goes to the session's artifact root, under
		// this directory: made and written there, never read or listed.
		p.Artifacts = filepath.Join(cfg.state, "runtime", "artifacts")
		if err := os.MkdirAll(p.Artifacts, 0o700); err != nil {
			os.RemoveAll(tmp)
			return nil, fmt.Errorf("toolset plugin %s: artifact directory: %w", c.Name, err)
		}
	}
	if img.direct != nil {
		p.Binary = c.Path
	}
	dir := cfg.workspace
	if dir == "" {
		dir = tmp // no workspace yet (the install's trial start)
	}
	return &confinement{policy: p, support: s, home: tmp, tmp: tmp, dir: dir, egress: ec, open: access.Network, toolset: true, access: access}, nil
}

// grantedAccess is what a toolset plugin installed by path is granted
// beyond reading its workspace: what its install record says its tools
// declared, while that record is for the binary's recorded sum; nothing
// otherwise.
func grantedAccess(c Candidate) Access {
	if rec, ok := installRecord(c); ok {
		return rec.Access
	}
	return Access{}
}

// hidden are the paths a toolset plugin never gets, even beneath its
// workspace: the state directory (tokens, sessions, the host's sockets),
// the host's runtime home, and, when the workspace holds the operator's
// home, the home's configuration (every dot-entry, ~/bin, and ~/.ssh
// whether or not it is there yet), as the host's own path checks treat
// them.
func (cfg launchConfig) hidden() []string {
	out := []string{cfg.state, cfg.home}
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) {
		out = append(out, filepath.Join(h, ".ssh"), filepath.Join(h, "bin"))
		if entries, err := os.ReadDir(h); err == nil {
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") {
					out = append(out, filepath.Join(h, e.Name()))
				}
			}
		}
	}
	return slices.DeleteFunc(out, func(p string) bool { return p == "" })
}

// startEgress starts the plugin's egress proxy; log receives each
// connection as it ends. The proxy keeps none itself: it lives as long as
// the plugin does.
func (cf *confinement) startEgress(name string, log func(egress.Event)) error {
	if len(cf.egress.Operator) == 0 && !cf.open {
		return nil // it declared no host: no way out (an empty list would allow any)
	}
	ec := cf.egress
	ec.Unkept = true
	px, err := egress.Start(ec, log)
	if err != nil {
		return fmt.Errorf("toolset plugin %s was not started: %w", name, err)
	}
	cf.proxy = px
	cf.policy.Egress = filepath.Dir(px.Socket())
	return nil
}

// env is the confined plugin's environment: the allowlist, with HOME,
// TMPDIR and the egress proxy's socket its own (after extra, so nothing
// replaces them).
func (cf *confinement) env(base, extra []string) []string {
	out := make([]string, 0, len(base)+len(extra)+3)
	own := func(kv string) bool {
		return strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "TMPDIR=") || strings.HasPrefix(kv, netpolicy.EnvEgressSocket+"=")
	}
	for _, kv := range append(slices.Clone(base), extra...) {
		if !own(kv) {
			out = append(out, kv)
		}
	}
	out = append(out, "HOME="+cf.home, "TMPDIR="+cf.tmp)
	if cf.proxy != nil {
		out = append(out, netpolicy.EnvEgressSocket+"="+cf.proxy.Socket())
	}
	return out
}

// confinedRunner starts the plugin from an OS thread of its own that was
// confined first (sandbox.ConfinePluginThread): the child inherits the
// thread's Landlock domain and seccomp filter. The thread waits for the
// child and ends with it, so the plugin's Pdeathsig (which fires when the
// forking thread ends) still means "the host is gone".
type confinedRunner struct {
	cmd            *exec.Cmd
	conf           *confinement
	stdout, stderr io.ReadCloser
	pid            int
	done           chan struct{}
	waitErr        error
}

var _ runner.Runner = (*confinedRunner)(nil)

func newConfinedRunner(cmd *exec.Cmd, conf *confinement) (*confinedRunner, error) {
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	return &confinedRunner{cmd: cmd, conf: conf, stdout: stdout, stderr: stderr, done: make(chan struct{})}, nil
}

func (r *confinedRunner) Start(context.Context) error {
	started := make(chan error, 1)
	go r.confinedStart(started, nil)
	return <-started
}

// testHookConfinedOn is told the thread each plugin is confined and
// forked on.
var testHookConfinedOn func(tid int)

// confinedStart confines the calling goroutine's thread and starts the
// plugin from it; moved, when not nil, is closed once this goroutine
// holds its thread. Never on the process's main thread: Landlock's
// scoping and ptrace checks judge a process by its leader, so a domain
// there put the host in the plugin's own domain (the plugin could signal
// the host and read its /proc/<pid>/cwd: TestPackagePluginIsConfined,
// once in a few runs), and Go never ends the main thread, so it would
// stay confined; it starts again from another thread.
func (r *confinedRunner) confinedStart(started chan<- error, moved chan<- struct{}) {
	// Never unlocked but here: the confined thread ends with this goroutine.
	runtime.LockOSThread()
	if moved != nil {
		close(moved)
	}
	if unix.Gettid() == unix.Getpid() {
		next := make(chan struct{})
		go r.confinedStart(started, next)
		<-next // it holds another thread: this one is locked until now
		runtime.UnlockOSThread()
		return
	}
	fail := func(err error) {
		r.waitErr = err
		close(r.done)
		started <- err
	}
	defer func() { go os.RemoveAll(r.conf.tmp) }() // (a link in it is removed, never followed)
	if px := r.conf.proxy; px != nil {
		defer px.Close() // the plugin is gone: so is its way out
	}
	if testHookConfinedOn != nil {
		testHookConfinedOn(unix.Gettid())
	}
	if err := sandbox.ConfinePluginThread(r.conf.policy, r.conf.support); err != nil {
		fail(fmt.Errorf("confine the plugin: %w", err))
		return
	}
	if err := r.cmd.Start(); err != nil {
		fail(err)
		return
	}
	r.pid = r.cmd.Process.Pid
	started <- nil
	r.waitErr = r.cmd.Wait()
	close(r.done)
}

func (r *confinedRunner) Wait(context.Context) error { <-r.done; return r.waitErr }

func (r *confinedRunner) Kill(context.Context) error {
	if r.cmd.Process == nil {
		return nil
	}
	if err := r.cmd.Process.Kill(); err != nil && err != os.ErrProcessDone {
		return err
	}
	return nil
}

func (r *confinedRunner) Stdout() io.ReadCloser { return r.stdout }
func (r *confinedRunner) Stderr() io.ReadCloser { return r.stderr }
func (r *confinedRunner) Name() string          { return r.cmd.Args[0] }
func (r *confinedRunner) ID() string {
	if r.pid == 0 {
		return ""
	}
	return strconv.Itoa(r.pid)
}
func (r *confinedRunner) Diagnose(context.Context) string {
	if r.conf.toolset {
		return "the plugin runs confined (Landlock, seccomp): it " + r.conf.access.String()
	}
	return "the plugin runs confined (Landlock, seccomp): it reads only system libraries, TLS roots and the resolver's files, writes only " + r.conf.home + ", and reaches the network only through the host's egress proxy (" + netpolicy.EnvEgressSocket + ")"
}
func (r *confinedRunner) PluginToHost(n, a string) (string, string, error) { return n, a, nil }
func (r *confinedRunner) HostToPlugin(n, a string) (string, string, error) { return n, a, nil }
