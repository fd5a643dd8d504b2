package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"demiurge.dev/shared/sandbox"
)

// spawn is the first stage: it starts this helper again in new namespaces
// (args: the rest of the command line, for the second stage) and becomes
// its stand-in: same exit status, signals passed on. The launcher (host or
// plugin) is non-dumpable, and so is a child of it until its execve: its
// /proc files belong to root, so an unprivileged launcher could not write
// the uid_map of a child it started in a new user namespace. This stage,
// a fresh dumpable process of the same user, can.
func spawn(net string, args []string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	// The second stage is pid 1 of a new pid namespace: it reports the
	// signal that killed the command here (fd 3), to die of it in turn.
	rd, wr, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, append([]string{"--report-fd", "3"}, args...)...)
	cmd.ExtraFiles = []*os.File{wr}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = os.Environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if net == "proxied" {
		sandbox.SetNamespacesProxied(cmd.SysProcAttr)
	} else {
		sandbox.SetNamespaces(cmd.SysProcAttr, net == "offline")
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cannot start a process in new user, mount and network namespaces: %w", err)
	}
	wr.Close()
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	err = cmd.Wait()
	var reported [1]byte
	n, _ := rd.Read(reported[:])
	rd.Close()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		ws, _ := exit.Sys().(syscall.WaitStatus)
		if sig := syscall.Signal(reported[0]); n == 1 && ws.Exited() && ws.ExitStatus() == 128+int(sig) {
			dieOf(sig)
		}
		if ws.Signaled() {
			dieOf(ws.Signal())
		}
		os.Exit(exit.ExitCode())
	}
	if err != nil {
		return err
	}
	os.Exit(0)
	return nil
}

// dieOf ends this process with signal s, so the launcher sees what
// happened to the command.
func dieOf(s syscall.Signal) {
	signal.Reset(s)
	_ = syscall.Kill(os.Getpid(), s)
	// Delivery is asynchronous: wait for it rather than exit first.
	time.Sleep(time.Second)
}
