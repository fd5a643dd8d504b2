package sandbox

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A proxied command runs in a network namespace of its own, which holds
// only a loopback device: nothing it sends leaves the namespace except
// through this forwarder, which the helper (the namespace's pid 1, not
// confined by the command's Landlock and seccomp, which bind only the
// thread that execs) runs: it accepts on 127.0.0.1 inside and carries
// each connection to the host's egress proxy over its unix socket. The
// socket is opened by descriptor before the mounts, so what the mounts
// hide does not matter, and the command cannot reach the proxy any other
// way than the one it is told.

// startForwarder brings the namespace's loopback up, checks that the
// proxy answers, and serves 127.0.0.1:<port>; it returns the port.
func startForwarder(socket string) (int, error) {
	if err := loopbackUp(); err != nil {
		return 0, fmt.Errorf("bring the namespace's loopback up: %w", err)
	}
	fd, err := unix.Open(socket, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("the egress proxy's socket %s: %w", socket, err)
	}
	via := "/proc/self/fd/" + strconv.Itoa(fd)
	probe, err := net.Dial("unix", via)
	if err != nil {
		return 0, fmt.Errorf("the egress proxy does not answer at %s: %w", socket, err)
	}
	probe.Close()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("listen on the namespace's loopback: %w", err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go carry(c, via)
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// carry copies one connection to the proxy and back; when either side
// ends or fails, so does the other (a proxy gone mid-transfer fails the
// command's connection).
func carry(c net.Conn, via string) {
	defer c.Close()
	up, err := net.Dial("unix", via)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(up, c)
		_ = up.(*net.UnixConn).CloseWrite()
		close(done)
	}()
	_, err = io.Copy(c, up)
	if err != nil {
		// Reset rather than end cleanly: the client must see a failure.
		_ = c.(*net.TCPConn).SetLinger(0)
		return
	}
	_ = c.(*net.TCPConn).CloseWrite()
	<-done
}

// loopbackUp sets IFF_UP on lo (a new network namespace starts with it
// down); it needs CAP_NET_ADMIN in the namespace's user namespace.
func loopbackUp() error {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(s)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(s, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(s, unix.SIOCSIFFLAGS, ifr)
}

// httpProxyEnvNames are the variables HTTP clients read a proxy from, in
// both cases (curl reads only the lower-case http_proxy).
var httpProxyEnvNames = []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"}

// withProxyEnv points the command's HTTP clients at the forwarder, and
// other clients (ALL_PROXY) at its SOCKS5, with names resolved by the
// proxy (socks5h), both on the one port; it keeps the namespace's own
// loopback direct; what the environment said about proxies before is
// dropped.
func withProxyEnv(env []string, port int) []string {
	addr := "127.0.0.1:" + strconv.Itoa(port)
	url, socks := "http://"+addr, "socks5h://"+addr
	out := make([]string, 0, len(env)+8)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(name) {
		case "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "FTP_PROXY":
			continue
		}
		out = append(out, kv)
	}
	for _, n := range httpProxyEnvNames {
		out = append(out, n+"="+url)
	}
	out = append(out, "ALL_PROXY="+socks, "all_proxy="+socks)
	const local = "localhost,127.0.0.1,::1"
	return append(out, "NO_PROXY="+local, "no_proxy="+local)
}
