package corerepo

import (
	"os/user"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// signature is the local operator: the only one who commits to the
// repository directly (evolve_core will commit as the host).
func signature() object.Signature {
	name := "operator"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	return object.Signature{Name: name, Email: name + "@localhost", When: time.Now()}
}
