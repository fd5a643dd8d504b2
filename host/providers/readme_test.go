package providers

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeModelFlags parses every `--model` value of the README's
// Models section.
func TestReadmeModelFlags(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n### Models\n")
	if !ok {
		t.Fatal("README has no Models section")
	}
	sec, _, _ = strings.Cut(sec, "\n#")
	flags := regexp.MustCompile("--model ([^` ]+)").FindAllStringSubmatch(sec, -1)
	if len(flags) < 4 {
		t.Fatalf("%d --model examples", len(flags))
	}
	for _, f := range flags {
		if f[1] == "provider:name" { // the syntax, not an example
			continue
		}
		if _, _, err := ParseModel(f[1]); err != nil {
			t.Errorf("README --model %s: %v", f[1], err)
		}
	}
}
