package disk

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const sumA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	builtin, installed := filepath.Join(root, "bin"), filepath.Join(root, "state", "plugins")
	write(t, filepath.Join(builtin, "demiurge-toolset-coding"), "x")
	write(t, filepath.Join(builtin, "demiurge-toolset-coding.sha256"), strings.ToUpper(sumA)+"  demiurge-toolset-coding\n")
	write(t, filepath.Join(builtin, "demiurge"), "launcher")
	write(t, filepath.Join(builtin, "demiurge-toolset-"), "no name")
	if err := os.MkdirAll(filepath.Join(builtin, "demiurge-toolset-adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(installed, "demiurge-toolset-coding"), "shadow attempt")
	write(t, filepath.Join(installed, "demiurge-toolset-coding.sha256"), sumA+"\n")
	write(t, filepath.Join(installed, "demiurge-toolset-zeta"), "z")
	write(t, filepath.Join(installed, "demiurge-toolset-bad"), "b")
	write(t, filepath.Join(installed, "demiurge-toolset-bad.sha256"), "not-a-sum  demiurge-toolset-bad\n")
	write(t, filepath.Join(installed, "demiurge-toolset-empty"), "e")
	write(t, filepath.Join(installed, "demiurge-toolset-empty.sha256"), "")

	got, err := Discover([]Dir{
		{Path: builtin, Origin: OriginBuiltin},
		{Path: filepath.Join(root, "missing"), Origin: OriginInstalled},
		{Path: installed, Origin: OriginInstalled},
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range got {
		names = append(names, c.Name)
	}
	if want := []string{"bad", "coding", "empty", "zeta"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("names = %v, want %v (sorted, no shadowing, no directories or dotted files)", names, want)
	}
	byName := map[string]Candidate{}
	for _, c := range got {
		byName[c.Name] = c
	}
	tests := []struct {
		name, problem, recorded string
		origin                  Origin
	}{
		{name: "coding", recorded: sumA, origin: OriginBuiltin},
		{name: "zeta", problem: "no recorded checksum", origin: OriginInstalled},
		{name: "bad", problem: "is not a sha256", origin: OriginInstalled},
		{name: "empty", problem: "is empty", origin: OriginInstalled},
	}
	for _, tt := range tests {
		c := byName[tt.name]
		if c.Origin != tt.origin || c.Recorded != tt.recorded {
			t.Errorf("%s: origin %s recorded %q, want %s %q", tt.name, c.Origin, c.Recorded, tt.origin, tt.recorded)
		}
		if (tt.problem == "") != (c.Problem == "") || !strings.Contains(c.Problem, tt.problem) {
			t.Errorf("%s: problem %q, want %q", tt.name, c.Problem, tt.problem)
		}
	}
	if byName["coding"].Path != filepath.Join(builtin, "demiurge-toolset-coding") {
		t.Errorf("coding came from %s, want the built-in directory", byName["coding"].Path)
	}
}

func TestDiscoverUnreadableDirectory(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	write(t, f, "")
	if _, err := Discover([]Dir{{Path: f, Origin: OriginBuiltin}}); err == nil || !strings.Contains(err.Error(), "list plugins in") {
		t.Fatalf("Discover of a file = %v, want a listing error", err)
	}
}
