// Package mcptest gives tests real MCP servers: the Go failure-case
// servers of host/mcp/testservers, built once per test process, and the
// npm reference servers (@modelcontextprotocol/server-everything and
// server-filesystem) that make test installs (make mcp-servers).
package mcptest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// NodeModulesEnv names the node_modules directory holding the npm
// reference servers. When it is unset the default is
// <repository>/.cache/npm/node_modules.
const NodeModulesEnv = "DEMIURGE_TEST_MCP_NODE_MODULES"

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// ServerNames are the failure-case test servers.
var ServerNames = []string{"echo", "hang_init", "crash_list", "bad_name", "huge_list", "garbage_stdout", "never_returns", "changing_list", "scripted", "progress", "elicit"}

// BuildServers compiles the test servers into one directory (once per
// process) and returns it: one binary, testservers/all, linked under each
// server's name (echo, hang_init, ...), which it dispatches on.
func BuildServers() (string, error) {
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "demiurge-mcp-servers-")
		if buildErr != nil {
			return
		}
		bin := filepath.Join(buildDir, "all")
		out, err := exec.Command("go", "build", "-o", bin, "demiurge.dev/host/mcp/testservers/all").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("build the MCP test servers: %w\n%s", err, out)
			return
		}
		for _, name := range ServerNames {
			if err := os.Link(bin, filepath.Join(buildDir, name)); err != nil {
				buildErr = err
				return
			}
		}
	})
	return buildDir, buildErr
}

// Cleanup removes what BuildServers built. The directory is the
// process's own, so each package's TestMain calls it once its tests have
// run (every test run left one behind before).
func Cleanup() {
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
}

// Servers is BuildServers for a test: it fails the test on error.
func Servers(t testing.TB) string {
	t.Helper()
	dir, err := BuildServers()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// NodeModules returns the node_modules directory with the reference
// servers. A missing directory fails the test, except locally when
// DEMIURGE_TEST_MCP_NODE_MODULES is unset and the default directory does
// not exist: then the test is skipped, saying how to install them.
func NodeModules(t testing.TB) string {
	t.Helper()
	dir, explicit, err := NodeModulesDir()
	if err == nil {
		return dir
	}
	if !explicit {
		t.Skipf("the npm MCP reference servers are not installed (%v); run: npm install --prefix .cache/npm @modelcontextprotocol/server-everything @modelcontextprotocol/server-filesystem, or set %s", err, NodeModulesEnv)
	}
	t.Fatalf("%s=%s: %v; make test (make mcp-servers) installs the reference servers there", NodeModulesEnv, dir, err)
	return ""
}

// NodeModulesDir finds the directory and checks that both reference
// servers are in it; explicit says whether the environment named it.
func NodeModulesDir() (dir string, explicit bool, err error) {
	dir, explicit = os.LookupEnv(NodeModulesEnv)
	if !explicit {
		root, rerr := repoRoot()
		if rerr != nil {
			return "", false, rerr
		}
		dir = filepath.Join(root, ".cache", "npm", "node_modules")
	}
	for _, s := range []string{EverythingScript(dir), FilesystemScript(dir)} {
		if _, err := os.Stat(s); err != nil {
			return dir, explicit, fmt.Errorf("%s is missing", s)
		}
	}
	return dir, explicit, nil
}

// EverythingScript is server-everything's entry point under dir.
func EverythingScript(dir string) string {
	return filepath.Join(dir, "@modelcontextprotocol", "server-everything", "dist", "index.js")
}

// FilesystemScript is server-filesystem's entry point under dir.
func FilesystemScript(dir string) string {
	return filepath.Join(dir, "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
}

// repoRoot is the directory holding go.work, found from the working
// directory upwards.
func repoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.work")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no go.work above " + wd)
		}
	}
}

// Manifest writes dir/<id>.yaml with body and returns its path; lines of
// body are YAML, for example "command: /path\nargs: [a]".
func Manifest(t testing.TB, dir, id string, body string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, id+".yaml")
	if err := os.WriteFile(p, []byte(strings.TrimLeft(body, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
