package terminal

import (
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// heapPeak samples the live heap every few milliseconds until stop is
// closed and reports the highest value seen.
func heapPeak(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		var peak atomic.Uint64
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				out <- peak.Load()
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// TestOutputCapBoundsArtifactAndMemory prints 1 GiB on stdout with a
// 1 MiB cap: the pipe is drained to its end (the command exits on its
// own), the artifact keeps exactly the first MiB, the rest is counted as
// dropped, and the heap stays small.
func TestOutputCapBoundsArtifactAndMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("prints 1 GiB")
	}
	const total, limit = 1 << 30, 1 << 20
	root := t.TempDir()
	stop := make(chan struct{})
	peak := heapPeak(stop)
	begin := time.Now()
	res, _ := run(t, quickRunner(), Request{
		Command:   "head -c 1073741824 /dev/zero; echo tail-end; echo err >&2",
		OutputCap: limit, ArtifactRoot: root, Timeout: 5 * time.Minute,
	})
	elapsed := time.Since(begin)
	close(stop)
	heap := <-peak
	if res.ExitReason != ReasonExited || res.ExitCode != 0 {
		t.Fatalf("the command did not run to its end: %+v", res)
	}
	if res.Stdout.Bytes != total+int64(len("tail-end\n")) || res.Stdout.DroppedBytes != res.Stdout.Bytes-limit || res.Stdout.CapBytes != limit {
		t.Fatalf("stdout bytes %d dropped %d cap %d", res.Stdout.Bytes, res.Stdout.DroppedBytes, res.Stdout.CapBytes)
	}
	if !strings.HasSuffix(res.Stdout.Tail, "\x00\x00tail-end\n") {
		t.Fatalf("the tail is not the stream's end: %q", res.Stdout.Tail[max(0, len(res.Stdout.Tail)-40):])
	}
	if res.Stderr.DroppedBytes != 0 || res.Stderr.Tail != "err\n" {
		t.Fatalf("stderr %+v", res.Stderr)
	}
	st, err := os.Stat(filepath.Join(root, res.Stdout.Artifact))
	if err != nil || st.Size() != limit {
		t.Fatalf("artifact: %v, %v; want exactly %d bytes", st, err, limit)
	}
	const heapBound = 64 << 20
	if heap > heapBound {
		t.Fatalf("live heap peaked at %d MiB while 1 GiB went through; want under %d MiB", heap>>20, heapBound>>20)
	}
	t.Logf("1 GiB through a 1 MiB cap in %s (%.0f MiB/s), live heap peak %.1f MiB", elapsed.Round(time.Millisecond), float64(total)/(1<<20)/elapsed.Seconds(), float64(heap)/(1<<20))
}

// TestOutputCapDefault: a call that sets no cap gets DefaultOutputCap and
// keeps all of a small output.
func TestOutputCapDefault(t *testing.T) {
	res, _ := run(t, quickRunner(), Request{Command: "echo hi"})
	if res.Stdout.CapBytes != DefaultOutputCap || res.Stdout.DroppedBytes != 0 || res.Stdout.Bytes != 3 {
		t.Fatalf("stdout %+v", res.Stdout)
	}
}
