package plugins

import (
	"crypto/sha256"
	"encoding/hex"

	"demiurge.dev/shared/toolsetv1"
)

// Input is what a plugin's Describe answer depends on besides its binary.
// Most plugins have none; the authored-tool runtime describes the tools of
// the core's slots.tools root, so the host passes it that root at
// Configure and the describe cache is keyed by the root's contents too.
type Input struct {
	// ToolsRoot and CoreDir go to the plugin in ConfigureRequest.
	ToolsRoot, CoreDir string
	// SlotsRoot is the core's slots/ directory for the authored runtime
	// ("" when the core has no pipeline slots).
	SlotsRoot string
	// Fingerprint identifies the state of everything the Describe answer
	// depends on (the caller computes it); a change is a cache miss.
	Fingerprint string
}

// cacheKey is a plugin's describe-cache key: the binary's recorded sha256,
// or for a plugin with an Input, the hash of both, so that editing a
// tool.yaml is a miss even though the binary did not change.
func cacheKey(recorded string, in Input) string {
	if recorded == "" || in == (Input{}) {
		return recorded
	}
	h := sha256.New()
	for _, s := range []string{"demiurge.describe-input.v1", recorded, in.ToolsRoot, in.CoreDir, in.SlotsRoot, in.Fingerprint} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// configureRequest is the Configure call a plugin with this input gets.
func (in Input) configureRequest(brokerID uint32) *toolsetv1.ConfigureRequest {
	return &toolsetv1.ConfigureRequest{HostServicesBrokerId: brokerID, ToolsRoot: in.ToolsRoot, CoreDir: in.CoreDir, SlotsRoot: in.SlotsRoot}
}
