package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
)

// Wrap rewrites cmd to start through the helper under policy p: argv
// becomes [helper, --policy, JSON, --, cmd.Path, cmd.Args[1:]...], and the
// process starts in new user and mount namespaces (and a new network
// namespace when offline or proxied), which need no root. The rest of cmd (Dir, Env,
// stdio, process group, Pdeathsig) is kept. Mode off leaves cmd alone.
// It fails, leaving cmd unchanged, when the kernel cannot enforce p.Mode:
// the caller must then refuse to run (or ask), never run unconfined.
func Wrap(cmd *exec.Cmd, helper string, p Policy) error {
	if p.Mode == Off {
		return nil
	}
	if cmd.Path == "" || cmd.Err != nil {
		return fmt.Errorf("sandbox: command not resolved: %v", cmd.Err)
	}
	if helper == "" {
		return errors.New("sandbox: no helper executable (bin/demiurge-sandbox)")
	}
	s := Detect(helper)
	if _, err := s.Enforced(p.Mode); err != nil {
		return err
	}
	netns, mntns, err := HostNamespaces()
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	p.HostMntNS = mntns
	if p.Mode.Offline() || p.Proxy != "" {
		p.HostNetNS = netns
	}
	if !p.HiddenListed {
		hidden, err := SensitiveCached(p.Workspace)
		if err != nil {
			return fmt.Errorf("sandbox: find sensitive files: %w", err)
		}
		p.Hidden, p.HiddenListed = hidden, true
	}
	env, added := forHelper(cmd.Environ())
	p.HelperEnv = added
	enc, err := p.Encode()
	if err != nil {
		return err
	}
	// The helper's first stage makes the namespaces (see cmd/sandbox
	// spawn.go): a non-dumpable launcher run by an ordinary user cannot
	// map the uid of a child it starts in a new user namespace itself.
	net := spawnNet(p.Mode.Offline(), p.Proxy != "")
	args := append([]string{helper, "--spawn", net, "--policy", enc, "--", cmd.Path}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = helper, args
	if first := firstStageBeside(helper); first != "" {
		// The same first stage as a binary that starts faster.
		cmd.Path, cmd.Args = first, append([]string{first, helper, net}, args[3:]...)
	}
	if added != nil {
		cmd.Env = env
	}
	return nil
}
