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
	speed := func(proxied bool) float64 {
		script := "curl -sS -o /dev/null -w '%{speed_download}' " + big
		if !proxied {
			out, err := exec.Command("sh", "-c", script).Output()
			if err != nil {
				t.Fatal(err)
			}
			v, _ := strconv.ParseFloat(string(out), 64)
			return v
		}
		r := f.run(t, p, "NO_PROXY= no_proxy= "+script)
		v, _ := strconv.ParseFloat(r.stdout, 64)
		return v
	}
	conn := func(proxied bool) time.Duration {
		script := "curl -sS -w '%{time_total}\\n' " + manyArgs
		var out string
		if !proxied {
			b, err := exec.Command("sh", "-c", script).Output()
			if err != nil {
				t.Fatal(err)
			}
			out = string(b)
		} else {
			out = f.run(t, p, "NO_PROXY= no_proxy= "+script).stdout
		}
		var ds []time.Duration
		for _, l := range strings.Fields(out) {
			v, _ := strconv.ParseFloat(l, 64)
			ds = append(ds, time.Duration(v*float64(time.Second)))
		}
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	t.Run("throughput", func(t *testing.T) {
		for round := range 3 {
			d, x := speed(false), speed(true)
			fmt.Printf("round %d: 1 GiB direct %.0f MiB/s, through the proxy %.0f MiB/s, ratio %.2f\n", round+1, d/(1<<20), x/(1<<20), x/d)
		}
	})
	t.Run("new connection", func(t *testing.T) {
		var added []time.Duration
		for round := range 7 {
			d, x := conn(false), conn(true)
			added = append(added, x-d)
			fmt.Printf("round %d: new connection to first response p50 direct %v, through the proxy %v, added %v\n", round+1, d, x, x-d)
		}
		slices.Sort(added)
		fmt.Printf("added per new connection, median of %d rounds: %v\n", len(added), added[len(added)/2])
	})
}
