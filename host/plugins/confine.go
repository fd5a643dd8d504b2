package plugins

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/hashicorp/go-plugin/runner"

	"demiurge.dev/shared/sandbox"
)

// Installed packages' plugins are third-party code the host fetched by
// name: they run confined (docs/architecture.md, "Package plugins run
// confined"). The host's own toolsets beside its binary, and a plugin the
// operator installed by path (`plugins install`, whose tools may read the
// workspace the host checked for them), run as before.

// EnvAllowUnconfinedPackages is the operator's switch, read from the
// host's environment only (never agent.yaml, never a package): set to 1,
// a package's plugin starts unconfined where the kernel cannot confine it.
// Without it such a start is refused.
const EnvAllowUnconfinedPackages = sandbox.EnvAllowUnconfinedPackages

// EnvPackagePorts lists the TCP ports a confined package may connect to
// (sandbox.PackagePorts).
const EnvPackagePorts = sandbox.EnvPackagePorts

// kernelSupport is what the kernel enforces; tests pretend it lacks
// Landlock.
var kernelSupport = sandbox.KernelSupport

// confinement is how one confined start runs.
type confinement struct {
	policy  sandbox.PluginPolicy
	support sandbox.Support
	home    string // HOME
	tmp     string // TMPDIR and the go-plugin socket directory's parent
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
		return nil, nil
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
	// A fresh TMPDIR every start (0700, a random name), removed when the
	// plugin ends: short, since go-plugin's socket path inside it must fit
	// a unix socket's 107 bytes (a state directory under a long home did
	// not).
	base := os.TempDir()
	if len(base) > 40 {
		base = "/tmp"
	}
	tmp, err := os.MkdirTemp(base, "demiurge-pkg-")
	if err != nil {
		return nil, fmt.Errorf("toolset plugin %s: temporary directory: %w", c.Name, err)
	}
	p := sandbox.PluginPolicy{Private: home, Tmp: tmp, Ports: ports}
	if img.direct != nil {
		p.Binary = c.Path // the child executes the installed file itself
	}
	return &confinement{policy: p, support: s, home: home, tmp: tmp}, nil
}

// env is the confined plugin's environment: the allowlist, with HOME and
// TMPDIR its own.
func (cf *confinement) env(base []string) []string {
	out := make([]string, 0, len(base)+2)
	for _, kv := range base {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "TMPDIR=") {
			out = append(out, kv)
		}
	}
	return append(out, "HOME="+cf.home, "TMPDIR="+cf.tmp)
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
	go func() {
		// Never unlocked: the confined thread ends with this goroutine.
		runtime.LockOSThread()
		fail := func(err error) {
			r.waitErr = err
			close(r.done)
			started <- err
		}
		defer func() { go os.RemoveAll(r.conf.tmp) }() // (a link in it is removed, never followed)
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
	}()
	return <-started
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
	return "the plugin runs confined (Landlock, seccomp): it reads only system libraries, TLS roots and the resolver's files, and writes only " + r.conf.home
}
func (r *confinedRunner) PluginToHost(n, a string) (string, string, error) { return n, a, nil }
func (r *confinedRunner) HostToPlugin(n, a string) (string, string, error) { return n, a, nil }
