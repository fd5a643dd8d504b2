package main

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// procGoneWait bounds how long procgone waits for the process to go.
const procGoneWait = 5 * time.Second

// procGone: procgone FILE — the process whose pid FILE holds is gone (no
// such pid, or only its zombie is left), within procGoneWait.
func procGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: procgone FILE")
	}
	pid, err := strconv.Atoi(strings.TrimSpace(ts.ReadFile(args[0])))
	if err != nil || pid <= 1 {
		ts.Fatalf("procgone: %s does not hold a pid: %v", args[0], err)
	}
	deadline := time.Now().Add(procGoneWait)
	for {
		if processGone(pid) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("process %d is still alive %s after the command", pid, procGoneWait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func processGone(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	// The state follows the command name, which is in parentheses.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// waitFileWait bounds how long waitfile waits.
const waitFileWait = 20 * time.Second

// waitFile: waitfile FILE — FILE exists and is not empty within
// waitFileWait: what a background command writes once it runs.
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	deadline := time.Now().Add(waitFileWait)
	for {
		if st, err := os.Stat(ts.MkAbs(args[0])); err == nil && st.Size() > 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s was not written within %s", args[0], waitFileWait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
