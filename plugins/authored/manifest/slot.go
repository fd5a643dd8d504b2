package manifest

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"
)

// SlotFileName is a pipeline slot's declaration: slots/<id>/slot.yaml.
const SlotFileName = "slot.yaml"

// slotFields are what the runtime reads from slot.yaml; the slot-only
// fields are the host's (it validates them and applies them around the
// call), so they are accepted here and not interpreted.
var slotFields = []string{"entrypoint", "description", "capability", "capabilities"}

// LoadSlot reads one slot directory: its slot.yaml and its entrypoint
// (default module:run). A slot runs exactly as an authored tool does; it
// is returned as a Tool so that the same runner and sandbox serve it.
func LoadSlot(dir, coreDir string) (*Tool, error) {
	return loadDir(dir, coreDir, SlotFileName, parseSlot, "the slot directory %q is not a valid slot id")
}

func parseSlot(data []byte, file string) (*Manifest, error) {
	if len(data) > MaxFileSize {
		return nil, &Error{File: file, Msg: fmt.Sprintf("is %d bytes, over the %d-byte limit", len(data), MaxFileSize)}
	}
	d := &decoder{file: file}
	m := Defaults()
	m.Entrypoint.Function = "run"
	root, err := d.document(data)
	if err != nil || root == nil {
		return &m, err
	}
	if root.Kind != yaml.MappingNode {
		return nil, d.errorf(root, "", "want a mapping, got %s", describe(root))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" || seen[k.Value] {
			return nil, d.errorf(k, clip(k.Value), "field names must be plain names, each once")
		}
		seen[k.Value] = true
		switch {
		case slices.Contains(SlotOnlyFields, k.Value):
		case slices.Contains(slotFields, k.Value):
			if err := d.field(&m, k.Value, k, v); err != nil {
				return nil, err
			}
		default:
			return nil, d.errorf(k, clip(k.Value), "%s", unknownMsg("field", k.Value, append(slices.Clone(slotFields), SlotOnlyFields...)))
		}
	}
	return &m, nil
}
