package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/catalogsnap"
	"demiurge.dev/host/core"
)

// TestForgedSnapshotGoesToTheHost is the attack of issue 11: a tool that
// runs as the host's user rewrites the launcher's catalog snapshot so that
// `tools list` shows a tool that does not exist. Whatever the forger
// writes without the host's key, the launcher ignores it and the host
// answers.
func TestForgedSnapshotGoesToTheHost(t *testing.T) {
	r := newRig(t)
	if _, ran := r.hostRan("tools", "list"); !ran {
		t.Fatal("the cold run did not go to the host")
	}
	entries, err := os.ReadDir(catalogsnap.Dir(r.state))
	if err != nil || len(entries) != 1 {
		t.Fatalf("snapshot directory: %v %v", entries, err)
	}
	snap := filepath.Join(catalogsnap.Dir(r.state), entries[0].Name())
	sealed, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	header, body, ok := bytes.Cut(sealed, []byte("\n"))
	if !ok || !bytes.Contains(body, []byte(`"name":"read_file"`)) {
		t.Fatalf("snapshot is not a MAC line and a body naming read_file: %.200q", sealed)
	}
	ghost := forgeGhost(t, body)
	otherKey := bytes.Repeat([]byte{7}, 32)
	for _, forge := range []struct {
		name string
		do   func()
	}{
		{"body edited, MAC kept", func() { write(t, snap, append(append(header, '\n'), ghost...)) }},
		{"no MAC at all (the old format)", func() { write(t, snap, ghost) }},
		{"key replaced by the forger's", func() {
			write(t, catalogsnap.KeyFile(r.state), otherKey)
			write(t, snap, append(append(header, '\n'), ghost...))
		}},
		{"key deleted", func() {
			os.Remove(catalogsnap.KeyFile(r.state))
			write(t, snap, sealed)
		}},
	} {
		t.Run(forge.name, func(t *testing.T) {
			if _, ran := r.hostRan("tools", "list"); ran {
				t.Fatal("the run before forging was not warm")
			}
			forge.do()
			res, ran := r.hostRan("tools", "list")
			if !ran {
				t.Fatalf("the launcher answered from a forged snapshot:\n%s", res)
			}
			if strings.Contains(res.stdout, "ghost_tool") || !strings.Contains(res.stdout, "read_file") {
				t.Fatalf("the listing is not the host's:\n%s", res)
			}
		})
	}
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// forgeGhost adds a tool ghost_tool (a copy of read_file) to a snapshot
// body and recomputes its fingerprint, as a forger who read the code would:
// only the MAC stands between it and the launcher's output.
func forgeGhost(t *testing.T, body []byte) []byte {
	t.Helper()
	var s catalogsnap.Snapshot
	if err := json.Unmarshal(body, &s); err != nil {
		t.Fatal(err)
	}
	for i, src := range s.Sources {
		for _, tool := range src.Tools {
			if tool.Name == "read_file" {
				tool.Name = "ghost_tool"
				s.Sources[i].Tools = append(s.Sources[i].Tools, tool)
				break
			}
		}
	}
	cat, err := catalog.Resolve(s.CatalogSources(), core.Default().Metadata)
	if err != nil {
		t.Fatal(err)
	}
	s.Fingerprint = cat.Fingerprint()
	out, err := json.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
