package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ConformanceClientEnv names the directory holding the conformance suite's
// node_modules. Set (CI), a missing or failed install fails the test; unset,
// the test installs into <repository>/.cache/npm-conformance-client and
// skips, saying why, only when npm cannot install it.
const ConformanceClientEnv = "DEMIURGE_TEST_MCP_CONFORMANCE_CLIENT"

// conformanceClientScenarios are the suite's client scenarios Demiurge's
// client is run against; the auth ones are left out, since it speaks no
// OAuth. expected-failures.yml lists those it fails.
var conformanceClientScenarios = []string{"initialize", "tools_call", "sse-retry", "elicitation-sep1034-client-defaults"}

// TestMCPConformanceClient runs the official MCP conformance suite's
// client scenarios against Demiurge's MCP client: the real binary, through
// testdata/mcp-conformance-client/client.sh, which writes a manifest for
// the suite's server URL and allows that loopback address as the operator
// would. A scenario fails the test when it fails and is not in the
// baseline, or passes and still is.
func TestMCPConformanceClient(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance suite takes a minute; not in -short")
	}
	suite := conformanceSuite(t)
	work := t.TempDir()
	bin := filepath.Join(work, "demiurge")
	if out, err := exec.Command("go", "build", "-o", bin, "demiurge.dev/cmd/demiurge").CombinedOutput(); err != nil {
		t.Fatalf("build demiurge: %v\n%s", err, out)
	}
	here, _ := filepath.Abs("testdata/mcp-conformance-client")
	for _, scenario := range conformanceClientScenarios {
		t.Run(scenario, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "npx", "-y", "node@22", suite, "client",
				"--command", filepath.Join(here, "client.sh"), "--scenario", scenario,
				"--expected-failures", filepath.Join(here, "expected-failures.yml"))
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "DEMIURGE_BIN="+bin)
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("the suite did not finish scenario %s within 3 minutes:\n%s", scenario, tail(out))
			}
			if err != nil {
				t.Fatalf("scenario %s: %v (a regression, or a baseline entry to remove)\n%s", scenario, err, tail(out))
			}
		})
	}
}

// conformanceSuite returns the suite's entry point, installing it first
// when needed.
func conformanceSuite(t *testing.T) string {
	t.Helper()
	dir, explicit := os.LookupEnv(ConformanceClientEnv)
	if !explicit {
		root, err := filepath.Abs("../..")
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(root, ".cache", "npm-conformance-client")
	}
	entry := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	if _, err := os.Stat(entry); err == nil {
		return entry
	}
	fail := func(format string, args ...any) {
		t.Helper()
		if explicit {
			t.Fatalf(format, args...)
		}
		t.Skipf(format+"; the conformance client test needs npm and Node 22 (npx -y node@22)", args...)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		fail("npm is not installed")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "mcp-conformance-client", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			fail("npm ci of the conformance suite did not finish in 5 minutes")
		}
		fail("npm ci of the conformance suite in %s failed (is the npm registry reachable?): %v\n%s", dir, err, tail(out))
	}
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("npm ci did not install %s", entry)
	}
	return entry
}

// tail is the last 4 KiB of a command's output.
func tail(out []byte) string {
	s := string(out)
	if len(s) > 4096 {
		s = "…" + s[len(s)-4096:]
	}
	return strings.TrimSpace(s)
}
