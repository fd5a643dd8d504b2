package agents

import "demiurge.dev/host/toolhost"

// coreHost resolves core_id to the host the child runs on: omitted or
// the parent's own core is the parent's host; another core of the core
// repository's revision the host runs is that core's host
// (toolhost.CoreHost: its own pipeline, slots, bootstrap and tools, under
// the parent's authority narrowed by that core's grants). An id spelled
// any other way, one the revision does not hold, or any id under a plain
// --core directory is refused naming the ids there are; a core that does
// not load is refused with its error.
func (g *Gate) coreHost(parent *toolhost.Session, id string) (*toolhost.Host, error) {
	if id == "" || id == parent.CoreID() {
		return parent.Host(), nil
	}
	h, err := parent.Host().CoreHost(id)
	if err != nil {
		return nil, refuse("%v", err)
	}
	return h, nil
}
