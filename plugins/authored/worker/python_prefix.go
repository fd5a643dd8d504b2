package worker

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// PythonPrefix is the installation prefix of interpreter python
// (sys.base_prefix): what a sandboxed worker must be able to read for the
// interpreter and its standard library to load, e.g. a pyenv version
// under a home directory the sandbox otherwise hides.
func PythonPrefix(ctx context.Context, python string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-I", "-c", "import sys; print(sys.base_prefix)")
	cmd.Env = []string{}
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s does not say its prefix: %w", python, err)
	}
	prefix := filepath.Clean(strings.TrimSpace(out.String()))
	if !filepath.IsAbs(prefix) {
		return "", fmt.Errorf("%s says its prefix is %q, not an absolute path", python, prefix)
	}
	return prefix, nil
}
