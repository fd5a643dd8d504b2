package toolhost

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"demiurge.dev/catalog"
	"demiurge.dev/host/core"
	"demiurge.dev/host/plugins"
)

// AuthoredToolset is the built-in plugin that runs a core's authored tools
// (plugins/authored). A core does not declare it in toolsets: declaring
// slots.tools is what makes authored tools exist (seed 000, "Authored
// Tools"), and without slots.tools the plugin is not used at all.
const AuthoredToolset = "authored"

// authoredInputs hand the authored-tool runtime the core's slots.tools
// root, and key its describe cache by the root's contents.
func authoredInputs(c *core.Core) map[string]plugins.Input {
	if !needsAuthored(c) {
		return nil
	}
	in := plugins.Input{ToolsRoot: c.ToolsRoot, CoreDir: c.Dir, SlotsRoot: slotsRoot(c)}
	if c.ToolsRoot != "" {
		in.Fingerprint = toolsRootFingerprint(c.ToolsRoot)
	}
	return map[string]plugins.Input{AuthoredToolset: in}
}

// needsAuthored: authored tools or pipeline slots run in the runtime.
func needsAuthored(c *core.Core) bool { return c.ToolsRoot != "" || slotsRoot(c) != "" }

// slotsRoot is the core's slots/ directory when it holds any slot.
func slotsRoot(c *core.Core) string {
	if len(c.Slots) == 0 {
		return ""
	}
	return filepath.Join(c.Dir, core.SlotsDir)
}

// usesAuthored says whether candidate c is the built-in authored-tool
// runtime this core needs. An installed plugin of that name never is.
func (h *Host) usesAuthored(c plugins.Candidate) bool {
	return needsAuthored(h.Core) && c.Name == AuthoredToolset && c.Origin == plugins.OriginBuiltin
}

// checkAuthored fails a core with slots.tools when the runtime is missing.
func (h *Host) checkAuthored() error {
	if !needsAuthored(h.Core) {
		return nil
	}
	for _, c := range h.Plugins.Candidates() {
		if h.usesAuthored(c) {
			return nil
		}
	}
	return fmt.Errorf("%s: slots.tools or pipeline slots need the built-in plugin %s%s, which is not built: run `make build`", h.Core.File, plugins.BinaryPrefix, AuthoredToolset)
}

// asAuthored marks the runtime's tools as authored, each with its
// tool.yaml as provenance, so that collisions with built-in tools are
// reported as such and fail core loading.
func asAuthored(src catalog.Source, d plugins.Description) catalog.Source {
	src.Kind = catalog.SourceAuthored
	files := map[string]string{}
	for _, t := range d.GetTools() {
		files[t.GetName()] = t.GetSourceFile()
	}
	for i := range src.Tools {
		src.Tools[i].Provenance.Kind = catalog.SourceAuthored
		src.Tools[i].Provenance.Path = files[src.Tools[i].Name]
	}
	return src
}

// authoredBase is the registry entry of an authored tool: what its
// tool.yaml declares (the plugin reports it), with the third-party floor
// for a field the plugin left empty. Core overrides may only raise it.
func authoredBase(claim catalog.Metadata, claimed claimedFields) catalog.Metadata {
	base := thirdPartyFloor
	base.Capability = claim.Capability
	if claimed.risk {
		base.Risk = claim.Risk
	}
	if claimed.approval {
		base.ApprovalPolicy = claim.ApprovalPolicy
	}
	return base
}

// maxFingerprintEntries bounds the walk of a tools root; a root with more
// files than this is not cached at all.
const maxFingerprintEntries = 4096

// toolsRootFingerprint identifies the state of a slots.tools root as far as
// the authored tools' descriptions depend on it: every file's path, type,
// size and modification time, and the content of every tool.yaml (a
// same-second edit of the same length still changes it). Bytecode caches
// are left out; the runtime writes none, but python run by hand does.
func toolsRootFingerprint(root string) string {
	h := sha256.New()
	n := 0
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && e.Name() == "__pycache__" {
			return filepath.SkipDir
		}
		if n++; n > maxFingerprintEntries {
			return fmt.Errorf("more than %d entries", maxFingerprintEntries)
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if e.IsDir() {
			// A directory's own mtime moves with any entry, a bytecode
			// cache's too; its entries are walked anyway.
			fmt.Fprintf(h, "%q %v\n", rel, info.Mode())
			return nil
		}
		fmt.Fprintf(h, "%q %v %d %d\n", rel, info.Mode(), info.Size(), info.ModTime().UnixNano())
		if e.Name() == "tool.yaml" && info.Mode().IsRegular() {
			return hashFile(h, p)
		}
		return nil
	})
	if err != nil {
		// Not cacheable: a fresh value every time is always a miss.
		var b [16]byte
		_, _ = rand.Read(b[:])
		return "uncacheable:" + hex.EncodeToString(b[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

func hashFile(w io.Writer, p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, io.LimitReader(f, 1<<20))
	return err
}
