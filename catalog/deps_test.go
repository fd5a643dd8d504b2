package catalog

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCatalogLinksNoSchemaLibrary keeps the catalog light: the JSON Schema
// validator's package init costs ~10 ms, which the tools-list launcher,
// built on this package, cannot afford. The validator lives in argcheck.
func TestCatalogLinksNoSchemaLibrary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "jsonschema") || strings.Contains(dep, "golang.org/x/text") || strings.Contains(dep, "grpc") {
			t.Errorf("package catalog depends on %s; keep it in catalog/argcheck", dep)
		}
	}
	if !strings.Contains(string(out), "demiurge.dev/catalog\n") {
		t.Fatalf("go list -deps output does not list the catalog itself:\n%s", out)
	}
}
