package turn_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/providers"
	"demiurge.dev/host/turn"
)

// syncChildEnv makes TestSyncsOfReadStepsChild run: a turn of read steps
// between two markers on stdout, for the strace of the test below.
const syncChildEnv = "DEMIURGE_TEST_SYNC_CHILD"

const syncSteps = 10

// TestSyncsOfReadStepsChild is the traced child of
// TestReadStepSyncsAtMostTwice; it does nothing in a plain run.
func TestSyncsOfReadStepsChild(t *testing.T) {
	if os.Getenv(syncChildEnv) == "" {
		t.Skip("the child of TestReadStepSyncsAtMostTwice")
	}
	model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
		// A model step takes longer than the store's 100 ms wait for
		// submitted events, as real ones do: the step's messages must
		// still ride with its audit commit, not get one of their own.
		if n > 1 {
			time.Sleep(150 * time.Millisecond)
		}
		return calls(call("", "read_file", `{"path":"a.txt"}`)), nil
	}}
	f := newFixture(t, model)
	f.write(t, "a.txt", "hello\n")
	l := &turn.Loop{Provider: model, Session: f.h.NewSession(), Store: f.store, MaxSteps: syncSteps}
	defer l.Close()
	ctx := context.Background()
	// The first turn records the session and warms the catalog and the
	// plugin.
	if _, err := l.Run(ctx, "warm up", &recorder{}); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("SYNC-BEGIN %s\n", f.state)
	res, err := l.Run(ctx, "read it ten times", &recorder{})
	fmt.Printf("SYNC-END\n")
	if err != nil || res.Status != turn.StatusStepCap {
		t.Fatal(res, err)
	}
}

// TestReadStepSyncsAtMostTwice counts the durable syncs of a turn of read
// steps, each model step 150 ms long, as the kernel sees them: the child process (plugins included)
// runs under strace, and every fsync, fdatasync, sync_file_range, syncfs,
// sync and msync between its markers counts, whatever file it is on. A
// read step may cost two (the one bbolt commit of its audit event, which
// carries the step's messages: data pages, then the meta page); the turn's
// prompt and its closing note one commit each. A third sync in a step, in
// the store or anywhere else, fails. The session search index is left
// out: it is derived from the store (rebuilt from it when behind), written
// in the background off the step's path, and its commits follow its
// 250 ms linger, not the steps.
func TestReadStepSyncsAtMostTwice(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed (CI installs it)")
	}
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(strace, "-f", "-qq", "-y", "-s", "512", "-o", trace,
		"-e", "trace=write,fsync,fdatasync,sync_file_range,syncfs,sync,msync",
		os.Args[0], "-test.run=^TestSyncsOfReadStepsChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), syncChildEnv+"=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the traced child failed: %v\n%s", err, out)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	begin := regexp.MustCompile(`write\(1<[^>]*>, "SYNC-BEGIN ([^"\\]+)`)
	syncCall := regexp.MustCompile(`\b(fsync|fdatasync|sync_file_range|syncfs|sync|msync)\((\d+<([^>]*)>)?`)
	var state string
	inside, ended := false, false
	var counted, index []string
	for _, l := range strings.Split(string(b), "\n") {
		if m := begin.FindStringSubmatch(l); m != nil {
			inside, state = true, m[1]
			continue
		}
		if !inside {
			continue
		}
		if strings.Contains(l, `"SYNC-END`) {
			ended = true
			break
		}
		m := syncCall.FindStringSubmatch(l)
		if m == nil || strings.Contains(l, "resumed>") {
			continue
		}
		if strings.HasPrefix(m[3], filepath.Join(state, "index")+string(filepath.Separator)) {
			index = append(index, m[1]+" "+m[3])
			continue
		}
		counted = append(counted, m[1]+" "+m[3])
	}
	if !ended {
		t.Fatalf("the trace has no pair of markers:\n%s", b)
	}
	limit := 2*syncSteps + 2*2
	t.Logf("%d syncs in a turn of %d read steps (limit %d), %d more by the session index", len(counted), syncSteps, limit, len(index))
	if len(counted) < 2*syncSteps {
		t.Fatalf("only %d syncs traced for %d steps, each of which commits its audit event durably: the trace misses them\n%s", len(counted), syncSteps, strings.Join(counted, "\n"))
	}
	if len(counted) > limit {
		t.Fatalf("%d syncs in a turn of %d read steps, want at most %d (two a step, two each for the prompt and the closing note):\n%s",
			len(counted), syncSteps, limit, strings.Join(counted, "\n"))
	}
}
