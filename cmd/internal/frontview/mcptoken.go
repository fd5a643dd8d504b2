package frontview

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
)

// MCPToken is `mcp serve --http`'s bearer token, for both CLIs: the
// first line of file (readMCPToken), or, when there is no --token-file,
// one made here (newMCPToken), which the caller prints.
func MCPToken(file string) (string, error) {
	if file == "" {
		return newMCPToken()
	}
	return readMCPToken(file)
}

// newMCPToken makes a token of 24 random bytes.
func newMCPToken() (string, error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// readMCPToken is --token-file's token, its first line trimmed; an error
// (a usage error to the CLI) when it cannot be read or is short.
func readMCPToken(file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("--token-file: %v", err)
	}
	tok, _, _ := strings.Cut(string(b), "\n")
	tok = strings.TrimSpace(tok)
	if len(tok) < 16 {
		return "", fmt.Errorf("--token-file %s: the token must be at least 16 characters", file)
	}
	return tok, nil
}
