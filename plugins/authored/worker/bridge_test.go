package worker

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The embedded bridge is a copy of the SDK's sdk.py; run go generate after
// changing that file.
func TestBridgeMatchesSDK(t *testing.T) {
	src, err := os.ReadFile("../../../sdk/python/demiurge/sdk.py")
	if err != nil {
		t.Skipf("the SDK source is not beside this module (built from a module cache?): %v", err)
	}
	if string(src) != Bridge {
		t.Fatal("plugins/authored/worker/bridge.py differs from sdk/python/demiurge/sdk.py: run go generate ./plugins/authored/worker")
	}
}

// Outside a worker, sdk.py is an ordinary module authors import in their
// own tests: importing it starts nothing and touches no file descriptor.
func TestSDKImportsStandalone(t *testing.T) {
	sdkDir, err := filepath.Abs("../../../sdk/python")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(sdkDir, "demiurge", "sdk.py")); err != nil {
		t.Skipf("the SDK source is not beside this module: %v", err)
	}
	script := `import sys, json
sys.path.insert(0, sys.argv[1])
from demiurge.sdk import ToolResult, to_value, CapabilityDenied
class Thing:
    def __str__(self):
        return "a thing"
print(json.dumps([to_value(ToolResult("c", display_output="d")), to_value(Thing()), to_value({"a": [1]}),
                  issubclass(CapabilityDenied, PermissionError)]))
`
	out, err := exec.Command(interpreter(t), "-I", "-B", "-c", script, sdkDir).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"content": "c", "is_error": false, "display_output": "d"}, "a thing", {"a": [1]}, true]`
	if strings.TrimSpace(string(out)) != want {
		t.Errorf("got %s\nwant %s", out, want)
	}
}
