package worker

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Python finds the interpreter for module entrypoints: python3 on path,
// resolved to the real executable. Version-manager shims (pyenv, asdf) are
// shell scripts that can take seconds to pick an interpreter; asking once
// keeps that cost off every worker start.
func Python(ctx context.Context, path string) (string, error) {
	var found string
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative PATH entry would run whatever the workspace holds
		}
		p := filepath.Join(dir, "python3")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			found = p
			break
		}
	}
	if found == "" {
		return "", fmt.Errorf("python3 is not on PATH; install python3 to run Python authored tools")
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, found, "-I", "-c", "import sys; print(sys.executable)")
	cmd.Env = []string{"PATH=" + path, "HOME=" + os.Getenv("HOME")}
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s does not run: %w", found, err)
	}
	real := strings.TrimSpace(out.String())
	if !filepath.IsAbs(real) {
		return found, nil
	}
	return real, nil
}
