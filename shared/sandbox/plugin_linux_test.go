package sandbox

import (
	"net"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestConfinePluginThreadHoldsOneThread: the confined thread reads the
// plugin's paths and not /etc/passwd; the rest of the process is as it was
// (the thread ends with its goroutine). It logs what confining costs.
func TestConfinePluginThreadHoldsOneThread(t *testing.T) {
	s := KernelSupport()
	if miss := PluginMissing(s); len(miss) > 0 {
		t.Skipf("no confinement here: %v", miss)
	}
	priv, tmp := t.TempDir(), t.TempDir()
	type result struct {
		took             time.Duration
		err, passwd, own error
	}
	done := make(chan result)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		start := time.Now()
		err := ConfinePluginThread(PluginPolicy{Private: priv, Tmp: tmp}, s)
		r := result{took: time.Since(start), err: err}
		_, r.passwd = os.ReadFile("/etc/passwd")
		r.own = os.WriteFile(filepath.Join(tmp, "x"), []byte("x"), 0o600)
		done <- r
	}()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.passwd == nil || r.own != nil {
		t.Fatalf("confined thread: /etc/passwd read err %v, own tmp write err %v", r.passwd, r.own)
	}
	if _, err := os.ReadFile("/etc/passwd"); err != nil {
		t.Fatalf("another thread lost /etc/passwd: %v", err)
	}
	t.Logf("ConfinePluginThread took %v", r.took)
}

// TestAConfinedPluginOpensNoIPSocket: Landlock's TCP rules name ports,
// never addresses, so a plugin allowed 443 reached the host's loopback, a
// LAN router or a metadata endpoint on a private address, and UDP it did
// not see at all. The confined thread opens no AF_INET, AF_INET6 or
// netlink socket of any type; a unix socket (go-plugin's, the egress
// proxy's) it still opens.
func TestAConfinedPluginOpensNoIPSocket(t *testing.T) {
	s := KernelSupport()
	if miss := PluginMissing(s); len(miss) > 0 {
		t.Skipf("no confinement here: %v", miss)
	}
	priv, tmp := t.TempDir(), t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	type try struct {
		name         string
		af, typ, prt int
	}
	tries := []try{
		{"tcp4", unix.AF_INET, unix.SOCK_STREAM, 0},
		{"udp4", unix.AF_INET, unix.SOCK_DGRAM, 0},
		{"tcp6", unix.AF_INET6, unix.SOCK_STREAM | unix.SOCK_CLOEXEC, 0},
		{"udp6", unix.AF_INET6, unix.SOCK_DGRAM | unix.SOCK_NONBLOCK, 0},
		{"icmp", unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_ICMP},
		{"netlink", unix.AF_NETLINK, unix.SOCK_RAW, 0},
	}
	done := make(chan map[string]error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		out := map[string]error{}
		if err := ConfinePluginThread(PluginPolicy{Private: priv, Tmp: tmp}, s); err != nil {
			out["confine"] = err
			done <- out
			return
		}
		for _, x := range tries {
			fd, err := unix.Socket(x.af, x.typ, x.prt)
			if err == nil {
				unix.Close(fd)
			}
			out[x.name] = err
		}
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err == nil {
			unix.Close(fd)
		}
		out["unix"] = err
		_, out["dial loopback"] = net.DialTimeout("tcp", l.Addr().String(), time.Second)
		done <- out
	}()
	got := <-done
	if err := got["confine"]; err != nil {
		t.Fatal(err)
	}
	for _, x := range tries {
		if got[x.name] == nil {
			t.Errorf("a confined plugin opened a %s socket", x.name)
		}
	}
	if got["dial loopback"] == nil {
		t.Errorf("a confined plugin connected to %s", l.Addr())
	}
	if got["unix"] != nil {
		t.Errorf("a confined plugin cannot open a unix socket: %v", got["unix"])
	}
}
