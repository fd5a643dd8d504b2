package frontview

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
)

// NewMCPToken is the bearer token `mcp serve --http` makes (and prints)
// when the operator gives no --token-file.
func NewMCPToken() (string, error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// ReadMCPToken is --token-file's token, its first line trimmed; an error
// (a usage error to the CLI) when it cannot be read or is short.
func ReadMCPToken(file string) (string, error) {
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
