package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"demiurge.dev/shared/pindir"
)

// MaxStdioLine bounds one JSON-RPC line from a stdio server: a server that
// writes without ever ending a line would otherwise grow the reader's
// buffer without limit. A line is one message, so it is the bound of every
// transport.
const MaxStdioLine = MaxMessageBytes

// guardScript leads a sandboxed stdio server's process group (in the pid
// namespace that ends whole), and an unsandboxed one's when the sandbox
// helper, whose guard ends its escapees too, is missing: it runs the server
// and, when the host dies (Pdeathsig sends it SIGTERM) or the server
// exits, kills the whole group. Pdeathsig on the server itself would
// spare the processes the server started; the group kill does not. The
// kill after the wait is for a host that dies so that the server sees
// its stdin end and exits before the guard's SIGTERM is handled: the
// server's children would otherwise outlive both. Stdin goes through fd 3
// because sh gives a background job /dev/null and dash ignores "<&0".
const guardScript = `trap 'kill -KILL 0' TERM HUP; exec 3<&0; "$@" <&3 3<&- & exec 3<&-; wait $!; kill -KILL 0`

// stdioProc is a started server process and the host's ends of its pipes.
type stdioProc struct {
	cmd    *exec.Cmd
	stdout *os.File
	exited chan struct{} // closed when the guard has exited and been reaped
	// tooLong is set when the server overran MaxStdioLine.
	tooLong atomic.Bool
}

func (p *stdioProc) wait(d time.Duration) {
	select {
	case <-p.exited:
	case <-time.After(d):
	}
}

// openStdio starts the server process itself (mcp-go would hand it the
// host's whole environment and read its stdout without a bound): the
// allowlisted environment plus the manifest's env, the resolved cwd, its
// own process group under the guard, stderr drained into a bounded tail,
// and stdout read through a line bound. mcp-go speaks JSON-RPC over the
// pipes.
func (c *conn) openStdio(connCtx context.Context, cfg dialConfig) error {
	s := c.plan.server
	env := make([]string, 0, len(cfg.env)+len(s.Env))
	env = append(env, cfg.env...)
	for _, kv := range s.Env {
		env = append(env, kv.Key+"="+kv.Value)
	}
	var files []*os.File
	pipe := func() (*os.File, *os.File, error) {
		r, w, err := os.Pipe()
		files = append(files, r, w)
		return r, w, err
	}
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	inR, inW, err1 := pipe()
	outR, outW, err2 := pipe()
	errR, errW, err3 := pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		closeAll()
		return fmt.Errorf("pipes for %s: %w", s.ID, err)
	}
	// The cwd was checked when the server was planned, before the
	// operator was asked; it is opened again now without following any
	// symlink, beneath the workspace, and the server starts in the
	// directory opened (a swap in between fails the start).
	wd, err := pinCwd(c.plan)
	if err != nil {
		closeAll()
		return fmt.Errorf("%s: %w", s.ID, err)
	}
	defer wd.Close() // the child has made it its cwd once Start returns
	if testHookCwdPinned != nil {
		testHookCwdPinned()
	}
	cmd := exec.Command("/bin/sh", append([]string{"-c", guardScript, "demiurge-mcp-guard", c.plan.command}, s.Args...)...)
	cmd.Env = env
	cmd.Dir = wd.ChildPath()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = serverProcAttr()
	px, wrapped, err := sandboxServer(cmd, c.plan, cfg)
	if err != nil {
		closeAll()
		return err
	}
	// Unsandboxed, the server runs under the helper's guard, which ends
	// what it leaves in sessions of their own as well (guardScript's group
	// kill does not reach them).
	if !wrapped && cfg.sandbox.Helper != "" {
		cmd.Path = cfg.sandbox.Helper
		cmd.Args = append([]string{cfg.sandbox.Helper, "--guard", "--", c.plan.command}, s.Args...)
		c.guarded = true
	}
	cfg.spawner.run(func() { err = cmd.Start() })
	// The child holds its own copies of its ends.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		if px != nil {
			px.Close()
		}
		return fmt.Errorf("start %s: %w", c.plan.command, err)
	}
	p := &stdioProc{cmd: cmd, stdout: outR, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		if px != nil {
			px.Close()
		}
		close(p.exited)
	}()
	c.proc, c.pgid = p, cmd.Process.Pid
	c.tail = newStderrTail()
	go c.tail.drain(errR)
	tr := transport.NewIO(&lineBound{r: outR, proc: p}, inW, nil)
	c.transport = tr
	c.client = c.newClient(tr, cfg)
	return c.client.Start(connCtx)
}

// lineBound fails the stream when a line runs past MaxStdioLine.
type lineBound struct {
	r    io.Reader
	proc *stdioProc
	run  int // bytes since the last newline
}

var errLineTooLong = fmt.Errorf("the server wrote a line of more than %d bytes without a newline; the connection was closed", MaxStdioLine)

func (l *lineBound) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i := 0; i < n; i++ {
		if p[i] == '\n' {
			l.run = 0
			continue
		}
		l.run++
		if l.run > MaxStdioLine {
			// An end of stream to mcp-go, which then closes quietly; the
			// flag gives the diagnostic.
			l.proc.tooLong.Store(true)
			return i, io.EOF
		}
	}
	return n, err
}

// pinCwd opens the plan's cwd (symlinks resolved when it was planned)
// beneath the workspace's real root, following no symlink.
func pinCwd(p *plan) (*pindir.Dir, error) {
	root, err := filepath.EvalSymlinks(p.workspace)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", p.workspace, err)
	}
	return pindir.Open(root, p.cwd)
}

// testHookCwdPinned runs after the cwd is pinned and before the server
// starts; tests swap the directory there.
var testHookCwdPinned func()
