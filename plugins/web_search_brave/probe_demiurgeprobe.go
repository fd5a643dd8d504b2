//go:build demiurgeprobe

package main

// A test build only (-tags demiurgeprobe): before it serves, the plugin
// tries what a hostile package would, as listed in $HOME/probe.json, and
// writes what happened to $HOME/probe.out. The host's confinement tests
// (host/packages, TestPackagePluginIsConfined) read it. Release builds
// do not contain this file.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type probeOp struct {
	Name string `json:"name"`
	Op   string `json:"op"` // read, write, list, symlink-read, connect, udp, proxy-connect, unix, ptrace, signal, write-fd, fds, env
	Path string `json:"path,omitempty"`
	Addr string `json:"addr,omitempty"`
	Pid  int    `json:"pid,omitempty"`
	FD   int    `json:"fd,omitempty"`
}

func init() {
	if os.Getenv("DEMIURGE_PROBE_CHILD") == "1" {
		os.Exit(0)
	}
	home := os.Getenv("HOME")
	b, err := os.ReadFile(filepath.Join(home, "probe.json"))
	if err != nil {
		return
	}
	var ops []probeOp
	if json.Unmarshal(b, &ops) != nil {
		return
	}
	out := map[string]string{}
	for _, op := range ops {
		out[op.Name] = runProbe(op, home)
	}
	res, _ := json.Marshal(out)
	_ = os.WriteFile(filepath.Join(home, "probe.out"), res, 0o600)
}

func verdict(err error) string {
	if err != nil {
		return "denied: " + err.Error()
	}
	return "ok"
}

func runProbe(op probeOp, home string) string {
	pid := op.Pid
	if pid == -1 {
		pid = os.Getppid() // the host that started us
	}
	path := op.Path
	if pid > 0 {
		path = fmt.Sprintf(path, pid)
	}
	switch op.Op {
	case "read":
		_, err := os.ReadFile(path)
		return verdict(err)
	case "open":
		f, err := os.Open(path)
		if err == nil {
			f.Close()
		}
		return verdict(err)
	case "readlink":
		_, err := os.Readlink(path)
		return verdict(err)
	case "list":
		_, err := os.ReadDir(path)
		return verdict(err)
	case "write":
		return verdict(os.WriteFile(path, []byte("pwned"), 0o600))
	case "symlink-read":
		link := filepath.Join(os.TempDir(), "link-"+op.Name)
		if err := os.Symlink(path, link); err != nil {
			return "symlink failed: " + err.Error()
		}
		_, err := os.ReadFile(link)
		return verdict(err)
	case "connect":
		c, err := net.DialTimeout("tcp", op.Addr, 2*time.Second)
		if err == nil {
			c.Close()
		}
		return verdict(err)
	case "udp":
		c, err := net.DialTimeout("udp", op.Addr, 2*time.Second)
		if err == nil {
			_, err = c.Write([]byte("x"))
			c.Close()
		}
		return verdict(err)
	case "proxy-connect":
		// Through the host's egress proxy, as a cooperative plugin goes.
		c, err := net.DialTimeout("unix", os.Getenv("DEMIURGE_EGRESS_SOCKET"), 2*time.Second)
		if err != nil {
			return "no proxy: " + err.Error()
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", op.Addr, op.Addr)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return verdict(err)
		}
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			return "denied: " + resp.Status + ": " + strings.TrimSpace(string(b))
		}
		return "ok"
	case "unix":
		c, err := net.DialTimeout("unix", path, 2*time.Second)
		if err == nil {
			c.Close()
		}
		return verdict(err)
	case "ptrace":
		err := syscall.PtraceAttach(pid)
		if err == nil {
			_ = syscall.PtraceDetach(pid)
		}
		return verdict(err)
	case "unshare":
		// A child of its own in a new user namespace (unshare(2) itself
		// fails in any multi-threaded process).
		cmd := exec.Command("/proc/self/exe")
		cmd.Env = []string{"DEMIURGE_PROBE_CHILD=1"}
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER}
		return verdict(cmd.Run())
	case "signal":
		return verdict(syscall.Kill(pid, syscall.SIGCONT))
	case "write-fd":
		f := os.NewFile(uintptr(op.FD), "fd")
		_, err := f.Write([]byte("x"))
		return verdict(err)
	case "reopen-fd":
		f, err := os.OpenFile("/proc/self/fd/"+strconv.Itoa(op.FD), os.O_RDWR, 0)
		if err == nil {
			_, err = f.Write([]byte("x"))
			f.Close()
		}
		return verdict(err)
	case "fds":
		var s string
		for fd := 0; fd < 256; fd++ {
			if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0); e == 0 {
				t, _ := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
				s += fmt.Sprintf("%d=%s\n", fd, t)
			}
		}
		return s
	case "env":
		b, _ := json.Marshal(os.Environ())
		return string(b)
	}
	return "unknown op"
}
