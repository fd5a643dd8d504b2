package mcp

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// clockTick is the unit of utime and stime in /proc/<pid>/stat (USER_HZ,
// 100 on Linux).
const clockTick = 10 * time.Millisecond

// processCPU is the CPU time so far of this process (the host side) and
// of every process in the server's process group (the MCP server, and
// whatever guard runs it).
func processCPU(tb testing.TB, pgid int) (host, server time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	host = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // gone meanwhile
		}
		// After the command's closing parenthesis: state, ppid, pgrp, ...
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) < 13 || f[2] != strconv.Itoa(pgid) {
			continue
		}
		utime, _ := strconv.ParseInt(f[11], 10, 64)
		stime, _ := strconv.ParseInt(f[12], 10, 64)
		server += time.Duration(utime+stime) * clockTick
	}
	return host, server
}

// reportCPU reports the host's and the server's CPU per call since the
// figures start gave (processCPU), so that work moved off the caller's
// path (onto another goroutine or the server) still shows.
func reportCPU(b *testing.B, pgid int, startHost, startServer time.Duration) {
	host, server := processCPU(b, pgid)
	n := float64(b.N)
	b.ReportMetric(float64((host-startHost).Nanoseconds())/n, "host-cpu-ns/op")
	b.ReportMetric(float64((server-startServer).Nanoseconds())/n, "server-cpu-ns/op")
}
