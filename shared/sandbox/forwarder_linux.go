package sandbox

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// A proxied command runs in a network namespace of its own, which holds
// only a loopback device: nothing it sends leaves the namespace except
// through a listener on 127.0.0.1 inside it, which the helper makes and
// hands to the host's egress proxy over the proxy's unix socket
// (SCM_RIGHTS). The proxy accepts the command's connections on it
// directly, so no process sits between the command and the proxy. The
// socket is opened by descriptor before the mounts, so what the mounts
// hide does not matter, and the command cannot reach the proxy any other
// way than the one it is told.

// proxyControl is the connection over which the listener went to the
// proxy; it stays open while the helper lives (the proxy stops accepting
// on the listener when it ends), so it must not be collected.
var proxyControl net.Conn

// startForwarder brings the namespace's loopback up, makes the listener
// and hands it to the proxy; it returns the listener's port and a wait
// that reports whether the proxy took it. The answer comes while the
// rest of the sandbox is set up; the command must not start before it.
func startForwarder(socket string) (int, func() error, error) {
	if err := loopbackUp(); err != nil {
		return 0, nil, fmt.Errorf("bring the namespace's loopback up: %w", err)
	}
	fd, err := unix.Open(socket, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, nil, fmt.Errorf("the egress proxy's socket %s: %w", socket, err)
	}
	defer unix.Close(fd)
	ctl, err := net.Dial("unix", "/proc/self/fd/"+strconv.Itoa(fd))
	if err != nil {
		return 0, nil, fmt.Errorf("the egress proxy does not answer at %s: %w", socket, err)
	}
	ln, err := net.ListenTCP("tcp4", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		ctl.Close()
		return 0, nil, fmt.Errorf("listen on the namespace's loopback: %w", err)
	}
	defer ln.Close() // the proxy holds its own copy
	lf, err := ln.File()
	if err != nil {
		ctl.Close()
		return 0, nil, fmt.Errorf("listen on the namespace's loopback: %w", err)
	}
	defer lf.Close()
	// A zero byte says "a listener follows"; no HTTP or SOCKS client
	// starts with it. The proxy answers a zero byte when it took it.
	_, _, err = ctl.(*net.UnixConn).WriteMsgUnix([]byte{0}, unix.UnixRights(int(lf.Fd())), nil)
	if err != nil {
		ctl.Close()
		return 0, nil, fmt.Errorf("the egress proxy at %s did not take the namespace's listener (%v)", socket, err)
	}
	proxyControl = ctl
	answer := make(chan error, 1)
	go func() {
		var ack [1]byte
		_ = ctl.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err := io.ReadFull(ctl, ack[:])
		if err == nil && ack[0] != 0 {
			err = fmt.Errorf("answered %#x", ack[0])
		}
		_ = ctl.SetReadDeadline(time.Time{})
		answer <- err
	}()
	wait := func() error {
		if err := <-answer; err != nil {
			return fmt.Errorf("network mode goes only through the host's egress proxy, which cannot be set up: the egress proxy at %s did not take the namespace's listener (%v)", socket, err)
		}
		return nil
	}
	return ln.Addr().(*net.TCPAddr).Port, wait, nil
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
