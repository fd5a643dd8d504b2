package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
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
		err := ConfinePluginThread(PluginPolicy{Private: priv, Tmp: tmp, Ports: []uint16{443}}, s)
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
