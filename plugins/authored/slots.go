package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"demiurge.dev/plugins/authored/manifest"
)

// SlotPrefix names a pipeline slot in an EffectRequest: "slot:<id>". No
// authored tool can have that name (a colon is not a tool-name character).
const SlotPrefix = "slot:"

// loadSlots reads every slots/<id>/slot.yaml under root. A broken slot is
// left out and reported; the host's own loading of the same files has
// already refused a core that names it, so this is defence, not policy.
func loadSlots(root, coreDir string) (map[string]*manifest.Tool, []string) {
	slots := map[string]*manifest.Tool{}
	if root == "" {
		return slots, nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		if os.IsNotExist(err) {
			return slots, nil
		}
		return slots, []string{"slots " + root + ": " + err.Error()}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var problems []string
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || strings.HasPrefix(e.Name(), "__") {
			continue
		}
		dir := filepath.Join(root, e.Name())
		if _, err := os.Lstat(filepath.Join(dir, manifest.SlotFileName)); err != nil {
			continue
		}
		t, err := manifest.LoadSlot(dir, coreDir)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		slots[t.ID] = t
	}
	return slots, problems
}
