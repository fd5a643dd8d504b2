package runtime

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// auditChildEnv makes the test binary a child that opens the store at the
// path it names, appends one event, says so on stdout, and dies by
// SIGKILL at once: a host that returned a result and crashed.
const auditChildEnv = "DEMIURGE_TEST_AUDIT_CHILD"

const auditMarker = "event appended by the child before it was killed"

func runAuditChild(path string) int {
	s, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	seq, err := s.Append(context.Background(), Event{Kind: "tool_call", Tool: "child", Data: []byte(`{"note":"` + auditMarker + `"}`)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Printf("appended %d\n", seq)
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // never reached
}

// startAuditChild runs the child (under prefix, e.g. strace) and waits,
// with a deadline, for it to report its append and die by SIGKILL.
func startAuditChild(t *testing.T, path string, prefix ...string) {
	t.Helper()
	argv := append(prefix, os.Args[0], "-test.run=^$")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), auditChildEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		line <- l
	}()
	select {
	case l := <-line:
		if !strings.HasPrefix(l, "appended ") {
			t.Fatalf("child said %q; stderr: %s", l, stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the child did not append within 30s; stderr: %s", stderr.String())
	}
	werr := make(chan error, 1)
	go func() { werr <- cmd.Wait() }()
	select {
	case err := <-werr:
		var ee *exec.ExitError
		if len(prefix) == 0 && (!errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL) {
			t.Fatalf("the child was not killed by SIGKILL: %v", err)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the child did not die within 30s")
	}
}

// An event Append reported is in the file even though the process died by
// SIGKILL right after: Append returns only once the commit is written.
func TestAppendedEventSurvivesSIGKILL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	startAuditChild(t, path)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	evs, err := s.Events(EventQuery{Tool: "child"})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || !strings.Contains(string(evs[0].Data), auditMarker) {
		t.Fatalf("after the kill the store holds %+v, want the child's event", evs)
	}
}

// A SIGKILL leaves the page cache alone, so the test above cannot see a
// missing fsync; only a power cut would. This one watches the system
// calls instead: before the child reports its append, every write to the
// store file is followed by an fdatasync/fsync of it. Run with bbolt's
// NoSync set, it fails (docs/mutations.md).
func TestAppendIsSyncedBeforeItReturns(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed (CI installs it)")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "state.db")
	trace := filepath.Join(dir, "trace")
	startAuditChild(t, path, strace, "-f", "-qq", "-y", "-e", "trace=pwrite64,write,fdatasync,fsync", "-o", trace)
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	onStore := regexp.MustCompile(`(pwrite64|write|fdatasync|fsync)\(\d+<` + regexp.QuoteMeta(path) + `>`)
	// The writer's zeros past bbolt's last page (tail.go), which it may
	// write while the child prints: no page of bbolt's starts with 32 zero
	// bytes (its id and flags lead every page), and no commit uses them
	// before they are synced.
	tailZeros := regexp.MustCompile(`pwrite64\(\d+<[^>]*>, "(\\0){32}"\.\.\., `)
	dirty, writes, syncs := false, 0, 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `"appended `) {
			if writes == 0 {
				t.Fatalf("no write to the store was traced before the append returned:\n%s", b)
			}
			if dirty {
				t.Fatalf("the append returned with %d writes to the store not followed by a sync (%d syncs traced)", writes, syncs)
			}
			return
		}
		m := onStore.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		switch m[1] {
		case "pwrite64", "write":
			if tailZeros.MatchString(l) {
				continue
			}
			dirty, writes = true, writes+1
		default:
			dirty, syncs = false, syncs+1
		}
	}
	t.Fatalf("the trace has no report of the append:\n%s", b)
}
