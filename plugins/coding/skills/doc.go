// Package skills is the coding toolset's side of skills in the Agent
// Skills layout: <root>/<name>/SKILL.md, whose YAML front matter gives
// name and description, with linked files under references/, templates/,
// scripts/ and assets/. It lists, reads and changes skills under the one
// root the host hands each call, and nowhere else: names and paths are
// checked (shared/skillpath) before anything is opened, reads and writes
// go through the fsops workspace boundary opened at that root (no
// symlink leaves it, writes are staged and swapped in atomically), and
// removals go through an os.Root of it.
package skills
