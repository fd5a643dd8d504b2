// Command probe tries one thing a sandboxed command must not be able to
// do (or, under mode off, can) and exits 0 when it worked, 1 with the
// error when it did not. The sandbox tests run it under the real helper.
package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		fail(fmt.Errorf("usage: probe ACTION [ARG]"))
	}
	arg := ""
	if len(os.Args) > 2 {
		arg = os.Args[2]
	}
	var err error
	switch os.Args[1] {
	case "connect": // a TCP connect to host:port
		var c net.Conn
		if c, err = net.Dial("tcp", arg); err == nil {
			c.Close()
		}
	case "mptcp": // MPTCP is TCP that Landlock's TCP rules do not see
		err = connectWith(unix.SOCK_STREAM, 262, arg)
	case "udp": // a UDP datagram to host:port
		err = connectWith(unix.SOCK_DGRAM, 0, arg)
	case "raw": // a raw ICMP socket
		var fd int
		if fd, err = unix.Socket(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP); err == nil {
			unix.Close(fd)
		}
	case "packet":
		var fd int
		if fd, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW, 0); err == nil {
			unix.Close(fd)
		}
	case "abstract": // connect to an abstract unix socket "@name"
		var c net.Conn
		if c, err = net.Dial("unix", "@"+arg); err == nil {
			c.Close()
		}
	case "unix": // connect to a pathname unix socket
		var c net.Conn
		if c, err = net.Dial("unix", arg); err == nil {
			c.Close()
		}
	case "ptrace": // attach to a process outside the sandbox, then let go
		pid := atoi(arg)
		if err = unix.PtraceSeize(pid); err == nil {
			err = unix.PtraceDetach(pid)
			if err == unix.ESRCH { // seized, not stopped: detach needs a stop
				err = nil
			}
		}
	case "signal": // SIGCONT to a process outside the sandbox (harmless)
		err = unix.Kill(atoi(arg), syscall.SIGCONT)
	case "userns": // a child in a new user namespace (then it could mount)
		cmd := exec.Command("/bin/true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER}
		err = cmd.Run()
	case "userns-clone3": // the same through clone3 (Go uses it for NEWTIME)
		cmd := exec.Command("/bin/true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | unix.CLONE_NEWTIME}
		err = cmd.Run()
	case "capability": // any effective capability left
		var b []byte
		if b, err = os.ReadFile("/proc/self/status"); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(line, "CapEff:"); ok && strings.Trim(strings.TrimSpace(v), "0") == "" {
					err = fmt.Errorf("no effective capability (%s)", strings.TrimSpace(v))
				}
			}
		}
	case "compat-keyctl": // the same through int 0x80
		err = compatKeyctl()
	case "keyctl":
		_, err = unix.KeyctlInt(unix.KEYCTL_GET_KEYRING_ID, unix.KEY_SPEC_SESSION_KEYRING, 0, 0, 0)
	default:
		err = fmt.Errorf("unknown action %q", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

// connectWith opens an AF_INET socket of a type and protocol and connects
// it (and, for UDP, sends one datagram).
func connectWith(typ, proto int, addr string) error {
	ap, err := net.ResolveUDPAddr("udp4", addr)
	if err != nil {
		return err
	}
	fd, err := unix.Socket(unix.AF_INET, typ, proto)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	sa := &unix.SockaddrInet4{Port: ap.Port}
	copy(sa.Addr[:], ap.IP.To4())
	if err := unix.Connect(fd, sa); err != nil {
		return err
	}
	if typ == unix.SOCK_DGRAM {
		// Sent is not arrived: only the listener's echo counts.
		if _, err = unix.Write(fd, []byte("probe")); err != nil {
			return err
		}
		tv := unix.Timeval{Sec: 2}
		if err = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
			return err
		}
		buf := make([]byte, 16)
		_, err = unix.Read(fd, buf)
	}
	return err
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		fail(err)
	}
	return n
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "probe:", err)
	os.Exit(1)
}
