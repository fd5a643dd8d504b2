package pipeline

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"demiurge.dev/shared/pathrules"
)

// AgentsFile is the project-instructions file the convention shared by
// Codex, Gemini CLI and others names.
const AgentsFile = "AGENTS.md"

// Bounds of the project instructions: each file and all of them. A file
// past its bound is cut at a line and marked, so the model knows.
const (
	MaxAgentsFileBytes  = 16 << 10
	MaxAgentsTotalBytes = 32 << 10
	maxAgentsDepth      = 32
)

// Workspace is what project_instructions needs of the session's workspace:
// its root and the test for paths the host keeps from tools (the state
// directory, the core, the operator's configuration).
type Workspace struct {
	Root string
	// Hidden reports a resolved path no tool may read; nil hides nothing
	// beyond the sensitive-path rules.
	Hidden func(string) bool
}

// ProjectInstructions reads AGENTS.md in the workspace root and in each
// directory from there down to cwd, outermost first, each bounded and the
// whole bounded. A file is left out, with a note, when it resolves
// (through symlinks) outside the workspace, names a sensitive path, is
// hidden by the host or is not a regular UTF-8 file. A cwd outside the
// workspace reads the root's file only. "" when there is none.
func ProjectInstructions(ws Workspace, cwd string) (string, []string, error) {
	root, err := filepath.EvalSymlinks(ws.Root)
	if err != nil {
		return "", nil, fmt.Errorf("workspace %s: %w", ws.Root, err)
	}
	dirs := []string{root}
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		if rel, err := filepath.Rel(root, real); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			d := root
			for i, part := range strings.Split(rel, string(filepath.Separator)) {
				if i >= maxAgentsDepth {
					break
				}
				d = filepath.Join(d, part)
				dirs = append(dirs, d)
			}
		}
	}
	var b strings.Builder
	var notes []string
	total := 0
	for _, d := range dirs {
		p := filepath.Join(d, AgentsFile)
		rel, _ := filepath.Rel(root, p)
		text, why := readAgents(root, p, ws.Hidden)
		if why != "" {
			notes = append(notes, rel+": "+why)
			continue
		}
		if text == "" {
			continue
		}
		if total+len(text) > MaxAgentsTotalBytes {
			notes = append(notes, fmt.Sprintf("%s: left out, the project instructions passed %d bytes", rel, MaxAgentsTotalBytes))
			continue
		}
		total += len(text)
		fmt.Fprintf(&b, "--- %s ---\n%s\n", filepath.ToSlash(rel), strings.TrimRight(text, "\n"))
	}
	if b.Len() == 0 {
		return "", notes, nil
	}
	return "Project instructions: the AGENTS.md files of the workspace, outermost first; a deeper file refines the ones above it.\n\n" + b.String(), notes, nil
}

// readAgents reads one AGENTS.md; why says why it was left out ("" with
// empty text: there is none).
func readAgents(root, p string, hidden func(string) bool) (text, why string) {
	real, err := filepath.EvalSymlinks(p)
	if os.IsNotExist(err) {
		return "", ""
	}
	if err != nil {
		return "", "unreadable: " + err.Error()
	}
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", "left out: it resolves outside the workspace"
	}
	if pathrules.IsSensitive(real) || hidden != nil && hidden(real) {
		return "", "left out: a sensitive or host-owned path"
	}
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return "", "unreadable: " + err.Error()
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", "left out: not a regular file"
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxAgentsFileBytes+1))
	if err != nil {
		return "", "unreadable: " + err.Error()
	}
	cut := len(data) > MaxAgentsFileBytes
	if cut {
		data = data[:MaxAgentsFileBytes]
		if i := strings.LastIndexByte(string(data), '\n'); i > 0 {
			data = data[:i+1]
		}
	}
	if !utf8.Valid(data) {
		return "", "left out: not UTF-8 text"
	}
	s := string(data)
	if cut {
		s += fmt.Sprintf("[cut: %s is over %d bytes]\n", AgentsFile, MaxAgentsFileBytes)
	}
	return s, ""
}
