package shellguard

import (
	"path/filepath"
	"strings"
)

// readPath judges a path the command reads: credential-like paths need
// approval at high risk, paths outside the workspace at medium.
func (g *guard) readPath(p string, f *finding) {
	switch p {
	case "", "-", "/dev/null", "/dev/stdin", "/dev/zero", "/dev/fd/0":
		return
	}
	abs := p
	if !filepath.IsAbs(abs) {
		if g.cwd == "" {
			abs = ""
		} else {
			abs = filepath.Join(g.cwd, p)
		}
	}
	rel, inside := "", false
	if abs != "" && g.root != "" {
		abs = filepath.Clean(abs)
		if abs == g.root {
			rel, inside = ".", true
		} else if r, ok := strings.CutPrefix(abs, g.root+"/"); ok {
			rel, inside = r, true
		}
	}
	if g.root == "/" {
		rel, inside = abs, true
	}
	// Relative to the root when inside, so that a workspace below a
	// directory that looks sensitive does not flag every file in it.
	sensitive := g.sensitive(p)
	if inside {
		sensitive = sensitive || g.sensitive(rel)
	} else if abs != "" {
		sensitive = sensitive || g.sensitive(abs)
	}
	if sensitive {
		f.prompt(High, "touches "+p+", a credential-like path")
	}
	if !inside && (abs != "" || filepath.IsAbs(p) || strings.HasPrefix(p, "..")) {
		f.prompt(Medium, "reads "+p+", outside the workspace")
	}
}
