package toolhost

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"demiurge.dev/host/core"
	"demiurge.dev/host/corerepo"
)

// GateOptions are what the host's gates check a tree against: the
// installed plugins (built-in and under the state directory).
type GateOptions struct {
	StateDir, BuiltinPluginDir string
	// Commit is the candidate commit whose read-only copy is checked.
	Commit string
}

// Gate is the host's check of a candidate core tree (tree holds
// agents/<core_id>/), shared by `demiurge core commit` and, later,
// evolve_core's review and promote: every core of the tree loads (agent.yaml,
// pipelines.yaml and slots), and its catalog resolves against the
// installed plugins; its policy examples (policy_examples.yaml), where it
// has any, get the verdicts they expect. Every failure is returned; each
// message names the file, line and field.
func Gate(ctx context.Context, tree string, opts GateOptions) error {
	if err := corerepo.CheckLayout(os.DirFS(tree)); err != nil {
		return fmt.Errorf("%s: %w", tree, err)
	}
	ents, err := os.ReadDir(filepath.Join(tree, corerepo.AgentsDir))
	if err != nil {
		return fmt.Errorf("%s: %w", corerepo.AgentsDir, err)
	}
	var errs []error
	for _, e := range ents {
		dir := filepath.Join(tree, corerepo.AgentsDir, e.Name())
		c, err := core.LoadVersioned(dir, core.Version{GitDir: corerepo.GitDir(opts.StateDir), ID: e.Name(), Commit: opts.Commit})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := gateCatalog(ctx, c, opts); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", filepath.Join(corerepo.AgentsDir, e.Name()), err))
		}
	}
	return errors.Join(errs...)
}

// gateCatalog assembles a host around c, as the host would run it, in a
// scratch workspace, resolves its catalog once and checks its policy
// examples against that catalog.
func gateCatalog(ctx context.Context, c *core.Core, opts GateOptions) error {
	ws, err := os.MkdirTemp("", "demiurge-gate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(ws)
	h, err := openCore(c, Options{StateDir: opts.StateDir, BuiltinPluginDir: opts.BuiltinPluginDir, Workspace: ws})
	if err != nil {
		return err
	}
	defer h.Close()
	cat, err := h.Catalog(ctx)
	if err != nil {
		return err
	}
	return gatePolicyExamples(ctx, h, cat)
}
