package webextract

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

const benchPageSize = 5 << 20

// rssChildEnv makes the test binary a child that fetches one URL and
// prints the result: peak RSS is then the fetcher's own, not the test
// server's or the benchmark loop's.
const rssChildEnv = "WEBEXTRACT_RSS_CHILD_URL"

// runRSSChild runs in the child process (see TestMain).
func runRSSChild(url string) {
	r := New(testOptions()).Fetch(context.Background(), url, 0)
	json.NewEncoder(os.Stdout).Encode(r)
	if r.Failure != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

func benchServer(b *testing.B) string {
	b.Helper()
	var page bytes.Buffer
	writeHuge(&page, benchPageSize)
	body := page.Bytes()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(body)
	})}
	go srv.Serve(l)
	b.Cleanup(func() { srv.Close() })
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return "http://site.test:" + port + "/page"
}

// BenchmarkWebExtract5MiB fetches and extracts a 5 MiB HTML page from a
// loopback server (wall time per fetch, MB/s), then measures the peak RSS
// and CPU time of one such fetch in a child process (peak-RSS-MiB,
// child-cpu-ms).
func BenchmarkWebExtract5MiB(b *testing.B) {
	url := benchServer(b)
	f := New(testOptions())
	b.SetBytes(benchPageSize)
	b.ReportAllocs()
	for b.Loop() {
		r := f.Fetch(context.Background(), url, 0)
		if r.Failure != nil || r.BytesRead != benchPageSize {
			b.Fatalf("fetch: %+v", r)
		}
	}
	b.StopTimer()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), rssChildEnv+"="+url)
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("child: %v: %s", err, out)
	}
	var r Result
	if err := json.Unmarshal(out, &r); err != nil || r.BytesRead != benchPageSize {
		b.Fatalf("child result %s: %v", out, err)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		b.Fatal("no rusage for the child")
	}
	b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MiB")
	// CPU time of the child (start-up included) says more than wall
	// time on a machine that others are loading.
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	b.ReportMetric(float64(cpu.Milliseconds()), "child-cpu-ms")
}
