// Package importrules holds only a test: the import direction of
// docs/architecture.md, checked over every module of the workspace.
package importrules
