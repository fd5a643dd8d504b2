package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"demiurge.dev/cmd/internal/frontview"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/hostd"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/shared/hostv1"
)

func hostCommand() *cli.Command {
	return &cli.Command{
		Name:  "host",
		Usage: "the long-lived host of the state directory, which every other command reaches through STATE/runtime/host.sock",
		Subcommands: []*cli.Command{
			{
				Name:  "start",
				Usage: "start the host (detached) unless one runs; --foreground runs it here, for a service manager",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "foreground", Usage: "run the host in this process until it is stopped or idle"},
					&cli.DurationFlag{Name: "idle-exit", Value: hostd.DefaultIdleExit, EnvVars: []string{"DEMIURGE_HOST_IDLE_EXIT"},
						Usage: "exit after this long with no front end and no running task; 0 never"},
				},
				Action: hostStart,
			},
			{
				Name:   "status",
				Usage:  "the running host: pid, uptime, front ends, sessions, tasks, plugins, MCP connections",
				Flags:  []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON"}},
				Action: hostStatus,
			},
			{
				Name:   "stop",
				Usage:  "stop the running host: its tasks are cancelled, its plugins stopped",
				Action: hostStop,
			},
		},
	}
}

func hostStart(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("host start takes no arguments")
	}
	if c.Bool("foreground") {
		return hostForeground(c)
	}
	cl, err := connectHost(c)
	if err != nil {
		return err
	}
	defer cl.Close()
	fmt.Fprintf(c.App.Writer, "host running (pid %d) on %s\n", cl.PID, cl.Socket)
	return nil
}

// hostForeground is the host itself. A host started by a front end
// reports on hostReadyEnv's descriptor once it listens.
func hostForeground(c *cli.Context) (err error) {
	var ready *os.File
	if fd, e := strconv.Atoi(os.Getenv(hostReadyEnv)); e == nil && fd >= 3 {
		ready = os.NewFile(uintptr(fd), "host-ready")
		os.Unsetenv(hostReadyEnv) // never passed on to plugins or commands
		defer func() {
			if err != nil {
				fmt.Fprintf(ready, "error: %v\n", err)
			}
			ready.Close()
		}()
	}
	state, err := stateDir(c)
	if err != nil {
		return err
	}
	idle := c.Duration("idle-exit")
	if idle == 0 {
		idle = -1 // never
	}
	config, _, err := hostConfig(c)
	if err != nil {
		return err
	}
	isHostProcess = true
	// `demiurge tasks` reaches this host on its socket (Tasks), the one
	// path; the task socket is for a command that is a host of its own.
	toolhost.ServeTaskSocket = false
	lock, err := hostd.Lock(state)
	var running hostd.ErrRunning
	if errors.As(err, &running) && ready != nil {
		// Another front end's host won the race: this one is not needed.
		return nil
	}
	if err != nil {
		return err
	}
	// Approvals come from the front end whose session asked, never from
	// a terminal of the host's.
	h, err := openHost(c, approval.DenyAll{})
	if err != nil {
		lock.Close()
		return err
	}
	if c.String("core") == "" {
		// The revision this host runs is the one it loaded, whatever
		// live was when its options were read.
		config = withRevision(config, h.Core.Revision)
	}
	// Open the store and the tasks now: a dead host's running tasks are
	// marked lost and their process trees ended before anyone connects.
	if _, err := h.Tasks(); err != nil {
		h.Close()
		lock.Close()
		return err
	}
	logger, err := hostLogger(state, c.String("log-level"))
	if err != nil {
		h.Close()
		lock.Close()
		return err
	}
	sched, err := startScheduler(c, h)
	if err != nil {
		h.Close()
		lock.Close()
		return fmt.Errorf("the scheduler could not start: %w", err)
	}
	srv, err := hostd.New(hostd.Options{Host: h, StateDir: state, Config: config, IdleExit: idle, Version: version, Logger: logger, Runner: hostRunner, Schedules: sched}, lock)
	if err != nil {
		sched.Engine.Stop()
		h.Close()
		lock.Close()
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if ready != nil {
		fmt.Fprintln(ready, "ready")
		ready.Close()
		ready = nil
		letGoOfTerminal()
	} else {
		fmt.Fprintf(os.Stderr, "demiurge host (pid %d) on %s\n", os.Getpid(), hostd.SocketPath(state))
	}
	return srv.Serve(ctx)
}

// letGoOfTerminal points the standard descriptors at /dev/null.
func letGoOfTerminal() {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return
	}
	for fd := 0; fd <= 2; fd++ {
		syscall.Dup2(int(null.Fd()), fd)
	}
	null.Close()
}

// dialRunning connects to the running host without starting one.
func dialRunning(c *cli.Context) (*hostd.Client, string, error) {
	state, err := stateDir(c)
	if err != nil {
		return nil, "", err
	}
	cl, err := hostd.Dial(c.Context, state, hostd.DialOptions{Config: hostd.AnyConfig})
	return cl, state, err
}

func hostStatus(c *cli.Context) error {
	cl, state, err := dialRunning(c)
	if errors.Is(err, hostd.ErrNoHost) {
		fmt.Fprintf(os.Stderr, "demiurge: no host runs for %s\n", state)
		return cli.Exit("", 3)
	}
	if err != nil {
		return err
	}
	defer cl.Close()
	st, err := cl.Status(c.Context, &hostv1.StatusRequest{})
	if err != nil {
		return hostGone(cl, "status", err)
	}
	return frontview.HostStatus(c.App.Writer, st, c.Bool("json"))
}

func hostStop(c *cli.Context) error {
	cl, state, err := dialRunning(c)
	if errors.Is(err, hostd.ErrNoHost) {
		fmt.Fprintf(c.App.Writer, "no host runs for %s\n", state)
		return nil
	}
	if err != nil {
		return err
	}
	defer cl.Close()
	if _, err := cl.Stop(c.Context, &hostv1.StopRequest{}); err != nil {
		return hostGone(cl, "stop", err)
	}
	// Stopped when it has let go of the lock (its tasks ended, its store
	// closed).
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, running := hostd.Running(state); !running {
			fmt.Fprintf(c.App.Writer, "host (pid %d) stopped\n", cl.PID)
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("the host (pid %d) was asked to stop and still runs after 30s", cl.PID)
}
