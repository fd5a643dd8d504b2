package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLinksNoHeavyPackages keeps the launcher fast: gRPC, go-plugin,
// protobuf and the JSON Schema validator each cost milliseconds of package
// initialisation, which a warm tools list under 30 ms cannot pay.
func TestLinksNoHeavyPackages(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	for _, dep := range deps {
		for _, heavy := range []string{"grpc", "go-plugin", "jsonschema", "protobuf", "urfave/cli", "bbolt",
			// the model SDKs (issue 34: --version and help must not load them)
			"anthropic-sdk-go", "openai-go", "google.golang.org/genai", "demiurge.dev/host/providers"} {
			if strings.Contains(dep, heavy) {
				t.Errorf("the launcher depends on %s; keep it in the full host (bin/demiurge-host)", dep)
			}
		}
	}
	for _, need := range []string{"demiurge.dev/catalog", "demiurge.dev/host/core", "demiurge.dev/host/catalogsnap", "demiurge.dev/cmd/internal/buildinfo"} {
		if !strings.Contains(" "+strings.Join(deps, " ")+" ", " "+need+" ") {
			t.Errorf("go list -deps does not list %s; is the check looking at the right package?", need)
		}
	}
}

// TestFullHostCompilesSchemas is the other half: the full host, which
// dispatches calls, links the schema compiler (through dispatch), so that
// its Resolve refuses a schema that does not compile and Coerce works.
func TestFullHostCompilesSchemas(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "demiurge.dev/cmd/demiurge").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "demiurge.dev/catalog/argcheck\n") {
		t.Fatal("the full host does not link demiurge.dev/catalog/argcheck: it would refuse every call (catalog.ErrSchemaNotCompiled)")
	}
}
