package runtime

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// tailChildEnv makes the test binary a child that appends events to the
// store at the path it names as fast as it can, from several goroutines
// (so commits carry groups), and says "ok SEQ DATA" on stdout after each
// Append returns, until it is killed.
const tailChildEnv = "DEMIURGE_TEST_TAIL_CHILD"

// tailData is event n's data: sizes vary from a few bytes to past a page
// (overflow pages), so commits land on new pages and the tail is
// extended again and again.
func tailData(tag string, n int) string {
	return fmt.Sprintf(`{"id":"%s-%d","pad":"%s"}`, tag, n, strings.Repeat("z", (n*1237)%9000))
}

func runTailChild(path string) int {
	s, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	tag := fmt.Sprint(os.Getpid())
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := g; ; n += 4 {
				d := tailData(tag, n)
				seq, err := s.Append(context.Background(), Event{Kind: "tool.call", Tool: "tailchild", Data: []byte(d)})
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(2)
				}
				mu.Lock()
				fmt.Printf("ok %d %s\n", seq, d)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return 0
}

// checkStore opens the store at path and requires bbolt's check to pass
// and every acknowledged event (seq → data) to read back as it was
// appended; it returns how many events the store holds.
func checkStore(t *testing.T, path string, acked map[uint64]string) int {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal("bbolt's check:", err)
	}
	evs, err := s.Events(EventQuery{Tool: "tailchild"})
	if err != nil {
		t.Fatal(err)
	}
	got := make(map[uint64]string, len(evs))
	for i, ev := range evs {
		if i > 0 && ev.Seq <= evs[i-1].Seq {
			t.Fatalf("events out of order: %d after %d", ev.Seq, evs[i-1].Seq)
		}
		got[ev.Seq] = string(ev.Data)
	}
	for seq, d := range acked {
		if got[seq] != d {
			t.Fatalf("event %d was acknowledged with %.40q; the store reads %.40q", seq, d, got[seq])
		}
	}
	return len(evs)
}

// TestTheTailSurvivesSIGKILLMidCommit: a writer killed by SIGKILL at
// random points of its commits (and of the tail's extensions, which run
// between them), twenty times over on one file, leaves a store bbolt's
// check passes in which every event an Append acknowledged reads back;
// while the writer runs, a second handle on the file is refused, not
// opened beside it.
func TestTheTailSurvivesSIGKILLMidCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a writer twenty times")
	}
	path := filepath.Join(t.TempDir(), "state.db")
	r := rand.New(rand.NewPCG(54, 5))
	acked := map[uint64]string{}
	for round := range 20 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), tailChildEnv+"="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		rd := bufio.NewReader(out)
		readOne := func() bool {
			l, err := rd.ReadString('\n')
			if err != nil {
				return false
			}
			var seq uint64
			var d string
			if _, err := fmt.Sscanf(l, "ok %d %s\n", &seq, &d); err != nil {
				t.Fatalf("child said %q: %v", l, err)
			}
			acked[seq] = d
			return true
		}
		want := 50 + r.IntN(400)
		for i := 0; i < want; i++ {
			if !readOne() {
				t.Fatalf("round %d: the child stopped after %d events; stderr: %s", round, i, stderr.String())
			}
		}
		if round == 0 {
			// A second handle while the writer holds the file.
			old := lockTimeout
			lockTimeout = 100e6
			if s, err := Open(path); err == nil {
				s.Close()
				t.Fatal("a second handle opened the store while the writer held it")
			}
			lockTimeout = old
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for readOne() { // what it acknowledged before it died
		}
		if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
			t.Fatalf("round %d: the child ended with %v, not killed; stderr: %s", round, err, stderr.String())
		}
		n := checkStore(t, path, acked)
		if n < len(acked) {
			t.Fatalf("round %d: %d events stored, %d acknowledged", round, n, len(acked))
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d events acknowledged over 20 kills; the file is %d bytes", len(acked), fi.Size())
}

// fullDiskEnv marks the run of TestTheStoreOnAFullDisk inside its own
// user and mount namespace (unshare -rm), where it mounts a small tmpfs.
const fullDiskEnv = "DEMIURGE_TEST_FULL_DISK"

// TestTheStoreOnAFullDisk: on a file system that fills up (a 3 MiB
// tmpfs) the tail's extension fails and is given up, and then bbolt's
// own writes fail: Append reports the error rather than hanging or
// acknowledging what it did not write, every event it acknowledged
// reads back after the store is closed and opened again, and bbolt's
// check passes. Runs where unshare may make a user namespace.
func TestTheStoreOnAFullDisk(t *testing.T) {
	if os.Getenv(fullDiskEnv) == "" {
		unshare, err := exec.LookPath("unshare")
		if err != nil {
			t.Skip("no unshare")
		}
		if err := exec.Command(unshare, "-rm", "true").Run(); err != nil {
			t.Skipf("unshare -rm: %v", err)
		}
		cmd := exec.Command(unshare, "-rm", os.Args[0], "-test.run=^TestTheStoreOnAFullDisk$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), fullDiskEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestTheStoreOnAFullDisk") {
			t.Fatalf("in its namespace: %v\n%s", err, out)
		}
		t.Logf("in its namespace:\n%s", out)
		return
	}
	dir := t.TempDir()
	if err := syscall.Mount("none", dir, "tmpfs", 0, "size=3m"); err != nil {
		t.Skipf("mount a tmpfs: %v", err)
	}
	defer syscall.Unmount(dir, syscall.MNT_DETACH)
	path := filepath.Join(dir, "state.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	acked := map[uint64]string{}
	var appendErr error
	for n := 0; appendErr == nil; n++ {
		if n > 10000 {
			t.Fatal("3 MiB held 10,000 events: the disk never filled")
		}
		d := tailData("full", n)
		var seq uint64
		if seq, appendErr = s.Append(context.Background(), Event{Kind: "tool.call", Tool: "tailchild", Data: []byte(d)}); appendErr == nil {
			acked[seq] = d
		}
	}
	t.Logf("%d events appended before: %v", len(acked), appendErr)
	if !s.tail.off {
		t.Error("the tail was not given up on the full disk")
	}
	// Small events may still fit in free pages; none may be lost.
	for n := range 20 {
		d := fmt.Sprintf(`{"id":"small-%d"}`, n)
		if seq, err := s.Append(context.Background(), Event{Kind: "tool.call", Tool: "tailchild", Data: []byte(d)}); err == nil {
			acked[seq] = d
		}
	}
	if err := s.Close(); err != nil {
		t.Log("close:", err)
	}
	n := checkStore(t, path, acked)
	t.Logf("%d events stored, %d acknowledged", n, len(acked))
}
