// Package pipeline runs the stages of a core's pipelines.yaml around a
// model turn. This round it runs the bootstrap stage's built-in slot,
// project_instructions (the workspace's AGENTS.md files); a pipeline that
// names an authored slot is refused when the host opens (ErrAuthoredSlots)
// rather than run without it: authored slots are validated (host/core) but
// not yet run through the authored runtime.
package pipeline
