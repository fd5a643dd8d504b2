package dispatch

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/toolsetv1"
)

// ArtifactIndex records the artifacts calls report (runtime.Store does).
type ArtifactIndex interface {
	IndexArtifact(ctx context.Context, rec runtime.ArtifactRecord) error
}

// artifactsDir is the directory every session's artifact root lies in.
const artifactsDir = "runtime" + string(filepath.Separator) + "artifacts"

// registerArtifact checks an artifact a plugin reported and records it in
// the artifact index by its opaque reference: the session root's name and
// the path under it. It returns that reference. The root itself must lie
// directly under runtime/artifacts, and the file under the root; anything
// else is refused, and so is a call whose artifact cannot be indexed.
func (t *Turn) registerArtifact(ctx context.Context, callID, tool, taskID string, a *toolsetv1.ArtifactRef) (string, error) {
	if err := t.checkArtifact(a.GetPath()); err != nil {
		return "", err
	}
	root := filepath.Clean(t.ArtifactRoot)
	if !strings.HasSuffix(filepath.Dir(root), string(filepath.Separator)+artifactsDir) {
		return "", fmt.Errorf("reported an artifact, but this turn's artifact root is not under %s: refused", artifactsDir)
	}
	rel, err := filepath.Rel(root, filepath.Clean(a.GetPath()))
	if err != nil || rel == "." {
		return "", fmt.Errorf("reported an artifact that names its root, not a file: refused")
	}
	rec := runtime.ArtifactRecord{
		Root: filepath.Base(root), Path: filepath.ToSlash(rel),
		MediaType: a.GetMediaType(), Size: a.GetSize(), SHA256: a.GetSha256(),
		Tool: tool, CallID: callID, TaskID: taskID,
		Principal: t.Authority.Principal, Session: t.Authority.Session,
	}
	ref := rec.Root + "/" + rec.Path
	if t.Artifacts == nil {
		return ref, nil
	}
	if err := t.Artifacts.IndexArtifact(ctx, rec); err != nil {
		return "", fmt.Errorf("artifact %s could not be indexed: %w", ref, err)
	}
	if p, ok := t.Artifacts.(ArtifactPruner); ok {
		// Retention: the new artifact may push runtime/artifacts over its
		// budget; the oldest of ended calls and tasks make room, never
		// this call's or this task's own (named within this session's
		// root: call ids repeat across sessions).
		live := func(r runtime.ArtifactRecord) bool {
			return r.Root == rec.Root && ((callID != "" && r.CallID == callID) || (taskID != "" && r.TaskID == taskID))
		}
		// The artifact is recorded; a failed prune only leaves more on
		// disk than the budget, and the next registration tries again.
		_, _ = p.PruneArtifacts(ctx, filepath.Dir(root), t.ArtifactBudget, live)
	}
	return ref, nil
}

// ArtifactPruner keeps runtime/artifacts within a budget (runtime.Store
// is one).
type ArtifactPruner interface {
	PruneArtifacts(ctx context.Context, dir string, budget int64, live func(runtime.ArtifactRecord) bool) (runtime.PruneReport, error)
}
