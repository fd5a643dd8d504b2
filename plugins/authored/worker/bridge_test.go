package worker

import (
	"os"
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
