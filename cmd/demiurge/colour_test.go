package main

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestColourOnATerminalOnly runs `plugins verify` on a real terminal:
// coloured there, plain with NO_COLOR or --no-color, and plain into a pipe.
func TestColourOnATerminalOnly(t *testing.T) {
	builtin, _ := testPlugins(t)
	bin := demiurgeBinary(t)
	const green = "\x1b[32mok\x1b[0m"
	for _, tc := range []struct {
		name   string
		env    []string
		args   []string
		colour bool
	}{
		{"terminal", nil, nil, true},
		{"NO_COLOR", []string{"NO_COLOR=1"}, nil, false},
		{"--no-color", nil, []string{"--no-color"}, false},
		{"--no-color after the command", nil, []string{"--no-color"}, false},
		{"TERM=dumb", []string{"TERM=dumb"}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			master, slave := openPTY(t)
			defer master.Close()
			args := []string{"--state", t.TempDir(), "--plugin-dir", builtin}
			verify := []string{"plugins", "verify", "coding"}
			if strings.Contains(tc.name, "after") {
				args = append(append(args, verify...), tc.args...)
			} else {
				args = append(append(args, tc.args...), verify...)
			}
			cmd := exec.Command(bin, args...)
			cmd.Env = append(append(os.Environ(), "HOME="+t.TempDir(), "TERM=xterm"), tc.env...)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			slave.Close()
			defer cmd.Process.Kill()
			scr := watch(master)
			scr.waitFor(t, "coding: ", 0)
			waitExit(t, cmd, 30*time.Second)
			<-scr.done
			out := scr.buf.String()
			if got := strings.Contains(out, green); got != tc.colour {
				t.Errorf("colour %v, want %v: %q", got, tc.colour, out)
			}
			if !tc.colour && strings.Contains(out, "\x1b[") {
				t.Errorf("an escape sequence without colour: %q", out)
			}
		})
	}
	out, err := exec.Command(bin, "--state", t.TempDir(), "--plugin-dir", builtin, "plugins", "verify", "coding").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "\x1b[") || !strings.Contains(string(out), "coding: ok ") {
		t.Errorf("into a pipe: %q", out)
	}
}

func waitExit(t *testing.T, cmd *exec.Cmd, within time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(within):
		t.Fatalf("%s did not exit within %v", cmd.Path, within)
	}
}
