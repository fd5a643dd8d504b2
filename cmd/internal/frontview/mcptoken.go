package frontview

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
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

// maxTokenFile bounds what is read of a token file.
const maxTokenFile = 64 << 10

// readMCPToken is --token-file's token, its first line trimmed; an error
// (a usage error to the CLI) when it cannot be read or is short, and when
// it is not the operator's own secret: the token is the endpoint's whole
// authority (a client that holds it answers its own approvals through
// elicitation), so a file another user could read or write (group or
// other permission bits, another owner) or one that is not a regular
// file (a FIFO another process feeds, a device) is refused, as ssh
// refuses such a private key. The checks are of the opened file
// (fstat), so a link swapped after them changes nothing; a FIFO is
// opened without blocking and never read.
func readMCPToken(file string) (string, error) {
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", fmt.Errorf("--token-file: %v", err)
	}
	defer f.Close()
	if err := ownSecretFile(f); err != nil {
		return "", fmt.Errorf("--token-file %s: %v", file, err)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile))
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

// ownSecretFile refuses an opened file that is not a regular file of
// this user's that only this user may read or write.
func ownSecretFile(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("its owner cannot be read")
	}
	if uid := os.Getuid(); int(st.Uid) != uid {
		return fmt.Errorf("owned by uid %d, not by you (uid %d): another user chose or can change the token", st.Uid, uid)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("mode %04o lets other users read or change the token, which is the endpoint's whole authority; chmod 600 %s", perm, f.Name())
	}
	return nil
}
