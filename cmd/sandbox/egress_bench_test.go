package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/host/egress"
)

// TestEgressFigures measures what the egress proxy costs (BENCHMARKS.md,
// issue 31): a 1 GiB download from a loopback server by curl, unconfined
// and direct against sandboxed (network mode) through the proxy, and the
// time to a first response on a new connection (one curl per request
// with 100 requests on fresh connections in one curl, so the process start
// cancels out), both interleaved. It only runs with
// DEMIURGE_EGRESS_FIGURES=1.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestEgressFigures(t *testing.T) {
	if os.Getenv("DEMIURGE_EGRESS_FIGURES") != "1" {
		t.Skip("set DEMIURGE_EGRESS_FIGURES=1 to measure (BENCHMARKS.md)")
	}
	needTool(t, "curl")
	const size = 1 << 30
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/small" {
			io.WriteString(w, "ok")
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(size))
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	addr := ln.Addr().(*net.TCPAddr).AddrPort()
	f := newFixture(t)
	p, _ := proxiedPolicy(t, f, egress.Config{Allow: []netip.AddrPort{addr}})
	big := "http://" + addr.String() + "/big"
	// 100 requests, each on a new connection (--no-keepalive is not
	// enough: -: --next with separate handles forces a new connection).
	var many []string
	for range 100 {
		many = append(many, "-H 'Connection: close' -o /dev/null http://"+addr.String()+"/small")
	}
	manyArgs := strings.Join(many, " --next ")
	// speed is the download rate; cpuPerGiB the CPU time of every
	// process on the path for it.
	var cpuPerGiB, cpuSelf time.Duration
	speed := func(proxied bool) float64 {
		script := "curl -sS -o /dev/null -w '%{speed_download}' " + big
		self0 := selfCPU()
		if !proxied {
			cmd := exec.Command("sh", "-c", script)
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			cpuSelf = selfCPU() - self0
			cpuPerGiB = cpuSelf + cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			v, _ := strconv.ParseFloat(string(out), 64)
			return v
		}
		r := f.run(t, p, "NO_PROXY= no_proxy= "+script)
		cpuSelf = selfCPU() - self0
		cpuPerGiB = cpuSelf + r.cpu
		v, _ := strconv.ParseFloat(r.stdout, 64)
		return v
	}
	// conn is the p50 time to a first response on a new connection, and
	// the CPU time per connection of every process on the path (this
	// process, which holds the server and the proxy, and the command's,
	// the helper's included; the sandbox's start is spread over the
	// requests).
	var cpuPerConn time.Duration
	conn := func(proxied bool) time.Duration {
		script := "curl -sS -w '%{time_total}\\n' " + manyArgs
		var out string
		self0 := selfCPU()
		if !proxied {
			cmd := exec.Command("sh", "-c", script)
			b, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			out = string(b)
			cpuPerConn = (selfCPU() - self0 + cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()) / 100
		} else {
			r := f.run(t, p, "NO_PROXY= no_proxy= "+script)
			out = r.stdout
			cpuPerConn = (selfCPU() - self0 + r.cpu) / 100
		}
		var ds []time.Duration
		for _, l := range strings.Fields(out) {
			v, _ := strconv.ParseFloat(l, 64)
			ds = append(ds, time.Duration(v*float64(time.Second)))
		}
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	// An earlier helper to compare with in the same run (its proxied
	// path through the same proxy), e.g. one built from an older commit.
	base := os.Getenv("DEMIURGE_EGRESS_FIGURES_BASE_HELPER")
	withHelper := func(bin string, f func()) {
		saved := helperBin
		helperBin = bin
		defer func() { helperBin = saved }()
		f()
	}
	t.Run("throughput", func(t *testing.T) {
		for round := range 3 {
			d := speed(false)
			dc, ds := cpuPerGiB, cpuSelf
			x := speed(true)
			// CPU: all processes (this one's share: the server, and the proxy when proxied).
			fmt.Printf("round %d: 1 GiB direct %.0f MiB/s (CPU %v, this process %v), through the proxy %.0f MiB/s (CPU %v, this process %v), ratio %.2f\n", round+1, d/(1<<20), dc.Round(time.Millisecond), ds.Round(time.Millisecond), x/(1<<20), cpuPerGiB.Round(time.Millisecond), cpuSelf.Round(time.Millisecond), x/d)
			if base != "" {
				var b float64
				withHelper(base, func() { b = speed(true) })
				fmt.Printf("round %d: through the proxy with the base helper %.0f MiB/s (CPU %v, this process %v), ratio %.2f\n", round+1, b/(1<<20), cpuPerGiB.Round(time.Millisecond), cpuSelf.Round(time.Millisecond), b/d)
			}
		}
	})
	t.Run("new connection", func(t *testing.T) {
		var added, addedBase, cpu, cpuBase []time.Duration
		for round := range 7 {
			d := conn(false)
			dc := cpuPerConn
			x := conn(true)
			added, cpu = append(added, x-d), append(cpu, cpuPerConn-dc)
			fmt.Printf("round %d: new connection to first response p50 direct %v, through the proxy %v, added %v; CPU per connection added %v\n", round+1, d, x, x-d, cpuPerConn-dc)
			if base != "" {
				var b time.Duration
				withHelper(base, func() { b = conn(true) })
				addedBase, cpuBase = append(addedBase, b-d), append(cpuBase, cpuPerConn-dc)
				fmt.Printf("round %d: through the proxy with the base helper %v, added %v; CPU per connection added %v\n", round+1, b, b-d, cpuPerConn-dc)
			}
		}
		median := func(ds []time.Duration) time.Duration { slices.Sort(ds); return ds[len(ds)/2] }
		fmt.Printf("added per new connection, median of %d rounds: %v (CPU %v)\n", len(added), median(added), median(cpu))
		if base != "" {
			fmt.Printf("added per new connection with the base helper, median of %d rounds: %v (CPU %v)\n", len(addedBase), median(addedBase), median(cpuBase))
		}
	})
}
