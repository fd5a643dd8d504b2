package hostd

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/host/runtime"
)

// fakeHost is another user's stand-in host (the child of
// TestAFrontEndTalksOnlyToItsOwnUsersHost): it holds the state's lock,
// leaves a token anyone can read and listens on the state's socket, and
// says how many bytes the front end sent it.
func fakeHost(state string) {
	syscall.Umask(0)
	lock, err := os.OpenFile(LockPath(state), os.O_RDWR|os.O_CREATE, 0o666)
	if err == nil {
		err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX)
	}
	if err == nil {
		err = os.WriteFile(runtime.TokenPath(SocketPath(state)), []byte("the-other-users-token"), 0o644)
	}
	var ln net.Listener
	if err == nil {
		ln, err = net.Listen("unix", SocketPath(state))
	}
	if err != nil {
		fmt.Println("fake host:", err)
		os.Exit(1)
	}
	fmt.Println("ready")
	ln.(*net.UnixListener).SetDeadline(time.Now().Add(20 * time.Second))
	got := 0
	for {
		c, err := ln.Accept()
		if err != nil {
			break
		}
		c.SetReadDeadline(time.Now().Add(time.Second))
		var b [4096]byte
		n, _ := c.Read(b[:])
		got += n
		c.Close()
		if os.Getenv("HOSTD_TEST_FAKE_HOST_ONCE") != "" {
			break
		}
	}
	fmt.Printf("received %d bytes\n", got)
	os.Exit(0)
}

// TestAFrontEndTalksOnlyToItsOwnUsersHost: a socket served by another
// user where the state's host socket should be (one who could rename
// STATE/runtime and put their own there) is refused by the front end on
// the kernel's word, before a byte goes to it: no token, no options, no
// model key. The state directory check (frontargs.CheckStateDir) keeps
// such a state out in the first place; this is the second layer.
func TestAFrontEndTalksOnlyToItsOwnUsersHost(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a host as another user")
	}
	base := t.TempDir()
	os.Chmod(base, 0o755)
	os.Chmod(filepath.Dir(base), 0o755)
	state := filepath.Join(base, "state")
	if err := os.MkdirAll(RuntimeDir(state), 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(state, 0o777)
	os.Chmod(RuntimeDir(state), 0o777)
	bin := filepath.Join(base, "hostd.test")
	exe, _ := os.Executable()
	b, err := os.ReadFile(exe)
	if err != nil || os.WriteFile(bin, b, 0o755) != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = []string{"HOSTD_TEST_FAKE_HOST=" + state, "HOSTD_TEST_FAKE_HOST_ONCE=1"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	r := bufio.NewReader(out)
	if l, _ := r.ReadString('\n'); l != "ready\n" {
		t.Fatalf("fake host: %q", l)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	start := time.Now()
	c, err := Dial(ctx, state, DialOptions{Config: AnyConfig})
	if err == nil {
		c.Close()
		t.Fatal("a front end said Hello to another user's socket")
	}
	if !strings.Contains(err.Error(), "served by uid 65534") {
		t.Fatalf("Dial = %v; want a refusal naming the other user", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the refusal took %s: another user's socket is not waited on", d)
	}
	rest, _ := r.ReadString('\n')
	cmd.Wait()
	if rest != "received 0 bytes\n" {
		t.Fatalf("the other user's socket: %q; want nothing sent to it", rest)
	}
}
