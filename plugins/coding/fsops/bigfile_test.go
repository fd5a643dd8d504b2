package fsops

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// The memory bound of the contract: read_file on the last lines of a 1 GiB
// file and patch on a 1 GiB file each keep peak RSS under 64 MiB. Each is
// measured in a fresh process (this test binary re-executed), whose VmHWM
// covers nothing but that one operation and the runtime.

const (
	rssChildEnv = "FSOPS_RSS_CHILD" // "read|patch <workspace> <file>"
	bigFileSize = 1 << 30
	rssLimitKB  = 64 << 10
	bigMarker   = "UNIQUE-MARKER-7f3a"
)

func TestBigFilePeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 1 GiB file; skipped with -short")
	}
	dir := bigFileDir(t)
	name := "big.log"
	lastLine := makeBigFile(t, filepath.Join(dir, name))

	t.Run("read_file last lines", func(t *testing.T) {
		out, kb := runRSSChildProcess(t, "read", dir, name)
		var res ReadResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("child result %q: %v", out, err)
		}
		if res.LinesReturned != 20 || !strings.HasSuffix(res.Content, lastLine+"\n") {
			t.Fatalf("read %d lines ending %q, want 20 ending %q", res.LinesReturned, tail(res.Content, 80), lastLine)
		}
		if res.FileSize != bigFileSize || res.BytesScanned > 1<<20 {
			t.Fatalf("file_size %d, bytes_scanned %d: the tail read scanned too much", res.FileSize, res.BytesScanned)
		}
		t.Logf("read_file(offset -20) on 1 GiB: peak RSS %d KiB", kb)
		if kb >= rssLimitKB {
			t.Fatalf("peak RSS %d KiB, want < %d KiB", kb, rssLimitKB)
		}
	})
	t.Run("patch", func(t *testing.T) {
		out, kb := runRSSChildProcess(t, "patch", dir, name)
		var res PatchResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("child result %q: %v", out, err)
		}
		if res.Replacements != 1 || res.BytesBefore != bigFileSize || res.BytesAfter != bigFileSize+int64(len("-patched")) {
			t.Fatalf("patch result %+v", res)
		}
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		end := make([]byte, 4096)
		if _, err := f.ReadAt(end, bigFileSize+int64(len("-patched"))-int64(len(end))); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(end), bigMarker+"-patched") {
			t.Fatalf("patched text not found at the end of the file")
		}
		t.Logf("patch on 1 GiB: peak RSS %d KiB", kb)
		if kb >= rssLimitKB {
			t.Fatalf("peak RSS %d KiB, want < %d KiB", kb, rssLimitKB)
		}
	})
}

// bigFileDir prefers tmpfs, where the 2 GiB written (file and staged
// copy) cost no disk flush; the bound measured is the process's, not the
// file system's.
func bigFileDir(t *testing.T) string {
	var st unix.Statfs_t
	if unix.Statfs("/dev/shm", &st) == nil && int64(st.Bavail)*st.Bsize > 3*bigFileSize && unix.Access("/dev/shm", unix.W_OK) == nil {
		d, err := os.MkdirTemp("/dev/shm", "fsops-big-")
		if err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return t.TempDir()
}

// makeBigFile writes text lines at the start, a hole, and text lines with
// a unique marker at the end: 1 GiB that takes no time to make. It returns
// the last line.
func makeBigFile(t *testing.T, path string) string {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var head strings.Builder
	for i := 0; head.Len() < 16<<10; i++ {
		fmt.Fprintf(&head, "head line %d\n", i)
	}
	var end strings.Builder
	for i := 0; i < 1000; i++ {
		if i == 900 {
			fmt.Fprintf(&end, "%s here\n", bigMarker)
		}
		fmt.Fprintf(&end, "tail line %d\n", i)
	}
	if _, err := f.WriteString(head.String()); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(end.String()), bigFileSize-int64(end.Len())); err != nil {
		t.Fatal(err)
	}
	return "tail line 999"
}

func runRSSChildProcess(t *testing.T, op, dir, name string) (string, int64) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), rssChildEnv+"="+op+" "+dir+" "+name)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child %s: %v\n%s", op, err, out)
	}
	var result string
	var kb int64 = -1
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "VmHWM_KB="); ok {
			kb, _ = strconv.ParseInt(v, 10, 64)
		} else if r, ok := strings.CutPrefix(line, "RESULT="); ok {
			result = r
		}
	}
	if kb < 0 || result == "" {
		t.Fatalf("child %s printed no measurement:\n%s", op, out)
	}
	return result, kb
}

// runRSSChild is the child side: one operation, then its peak RSS.
func runRSSChild() int {
	fields := strings.Fields(os.Getenv(rssChildEnv))
	if len(fields) != 3 {
		fmt.Fprintln(os.Stderr, "bad", rssChildEnv)
		return 2
	}
	op, dir, name := fields[0], fields[1], fields[2]
	ws, err := OpenWorkspace(dir, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer ws.Close()
	var res any
	switch op {
	case "read":
		res, err = ReadFile(context.Background(), ws, ReadParams{Path: name, Offset: -20})
	case "patch":
		res, err = Patch(context.Background(), ws, PatchParams{Path: name, OldString: bigMarker, NewString: bigMarker + "-patched"})
	default:
		err = fmt.Errorf("unknown op %q", op)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			fmt.Printf("VmHWM_KB=%s\n", strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	b, _ := json.Marshal(res)
	fmt.Printf("RESULT=%s\n", b)
	return 0
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
