package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestMakeInstallPutsDemiurgeOnPATH: after `make install`, the command
// MCP client configurations name ("command": "demiurge", found on PATH)
// serves the catalog, started from another directory. make install links
// PREFIX/bin/demiurge to bin/demiurge, which finds demiurge-host and the
// plugins beside the file the link resolves to.
func TestMakeInstallPutsDemiurgeOnPATH(t *testing.T) {
	bin := os.Getenv("DEMIURGE_TEST_PLUGIN_DIR")
	if _, err := os.Stat(filepath.Join(bin, "demiurge")); bin == "" || err != nil {
		t.Skip("needs the bin/ of make build (DEMIURGE_TEST_PLUGIN_DIR, which make test sets)")
	}
	prefix := t.TempDir()
	// -o build: bin/ is already built; make install only links.
	mk := exec.Command("make", "-C", "../..", "-o", "build", "install", "PREFIX="+prefix, "BIN="+bin)
	mk.Env = append(os.Environ(), "PATH=/usr/bin:/bin")
	out, err := mk.CombinedOutput()
	if err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	if want := prefix + "/bin is not on PATH"; !strings.Contains(string(out), want) {
		t.Errorf("make install did not say %q:\n%s", want, out)
	}
	t.Setenv("PATH", filepath.Join(prefix, "bin")+":/usr/bin:/bin")
	t.Setenv("DEMIURGE_STATE", t.TempDir())
	t.Setenv("DEMIURGE_PLUGIN_DIR", "")
	os.Unsetenv("DEMIURGE_PLUGIN_DIR") // the plugins beside the resolved binary
	t.Setenv("DEMIURGE_WORKSPACE", t.TempDir())
	cmd, err := exec.LookPath("demiurge")
	if err != nil {
		t.Fatalf("demiurge is not on PATH after make install: %v", err)
	}
	t.Chdir(t.TempDir())
	c, err := client.NewStdioMCPClient(cmd, os.Environ(), "mcp", "serve")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	init.Params.ClientInfo = mcp.Implementation{Name: "make-install", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range res.Tools {
		names[tool.Name] = true
	}
	if !names["read_file"] || !names["terminal"] {
		t.Errorf("tools of the installed demiurge: %v; want the built-in read_file and terminal", names)
	}
}
