package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	toml "github.com/pelletier/go-toml/v2"
)

// readmeServeSection is the README's "Serving the catalog over MCP".
func readmeServeSection(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	start := strings.Index(s, "## Serving the catalog over MCP")
	if start < 0 {
		t.Fatal("the README has no section Serving the catalog over MCP")
	}
	end := strings.Index(s[start+3:], "\n## ")
	return s[start : start+3+end]
}

var fence = regexp.MustCompile("(?s)```(json|toml)\n(.*?)```")

type serverConfig struct {
	Command string            `json:"command" toml:"command"`
	Args    []string          `json:"args" toml:"args"`
	Type    string            `json:"type"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// TestREADMEMCPClientConfigs: every client configuration the README
// shows parses as its client reads it (JSON for Claude Code and Cursor,
// TOML for Codex); each stdio one, started as written (with this build's
// binary for "demiurge"), lists the catalog; the HTTP one names the
// endpoint and the bearer header the server wants.
func TestREADMEMCPClientConfigs(t *testing.T) {
	bin, plugins := demiurgeHost(t)
	blocks := fence.FindAllStringSubmatch(readmeServeSection(t), -1)
	if len(blocks) != 4 {
		t.Fatalf("want 4 configuration blocks (Claude Code stdio and HTTP, Codex, Cursor), found %d", len(blocks))
	}
	stdio := 0
	for _, blk := range blocks {
		var servers map[string]serverConfig
		switch blk[1] {
		case "json":
			var doc struct {
				MCPServers map[string]serverConfig `json:"mcpServers"`
			}
			dec := json.NewDecoder(strings.NewReader(blk[2]))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&doc); err != nil {
				t.Fatalf("%v:\n%s", err, blk[2])
			}
			servers = doc.MCPServers
		case "toml":
			var doc struct {
				MCPServers map[string]serverConfig `toml:"mcp_servers"`
			}
			if err := toml.NewDecoder(strings.NewReader(blk[2])).DisallowUnknownFields().Decode(&doc); err != nil {
				t.Fatalf("%v:\n%s", err, blk[2])
			}
			servers = doc.MCPServers
		}
		cfg, ok := servers["demiurge"]
		if !ok {
			t.Fatalf("no demiurge server in:\n%s", blk[2])
		}
		if cfg.Type == "http" {
			if !strings.HasSuffix(cfg.URL, "/mcp") || !strings.HasPrefix(cfg.Headers["Authorization"], "Bearer ") {
				t.Fatalf("HTTP config: %+v", cfg)
			}
			continue
		}
		if cfg.Command != "demiurge" || len(cfg.Args) < 2 || strings.Join(cfg.Args[len(cfg.Args)-2:], " ") != "mcp serve" {
			t.Fatalf("stdio config: %+v", cfg)
		}
		stdio++
		// As the client starts it: the README's args, with this test's
		// state and plugins given through the environment.
		t.Setenv("DEMIURGE_STATE", t.TempDir())
		t.Setenv("DEMIURGE_PLUGIN_DIR", plugins)
		t.Setenv("DEMIURGE_WORKSPACE", t.TempDir())
		c, err := client.NewStdioMCPClient(bin, os.Environ(), cfg.Args...)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		init := mcp.InitializeRequest{}
		init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
		init.Params.ClientInfo = mcp.Implementation{Name: "readme", Version: "1"}
		ir, err := c.Initialize(ctx, init)
		if err != nil {
			t.Fatalf("%v: %v", cfg.Args, err)
		}
		if ir.ServerInfo.Name != "demiurge" || ir.ServerInfo.Version != version {
			t.Errorf("serverInfo %+v, want demiurge %s (the real version)", ir.ServerInfo, version)
		}
		res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		cancel()
		c.Close()
		if err != nil || len(res.Tools) == 0 {
			t.Fatalf("%v: %v %v", cfg.Args, res, err)
		}
	}
	if stdio != 3 {
		t.Fatalf("%d stdio configurations, want 3", stdio)
	}
}
