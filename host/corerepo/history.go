package corerepo

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// Entry is one commit of the log.
type Entry struct {
	Commit  string
	Author  string
	When    time.Time
	Subject string
}

// Log lists up to n commits from rev back along first parents.
func (r *Repo) Log(rev string, n int) ([]Entry, error) {
	h, err := r.Resolve(rev)
	if err != nil {
		return nil, err
	}
	c, err := r.commit(h)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for c != nil && len(out) < n {
		subject, _, _ := strings.Cut(c.Message, "\n")
		out = append(out, Entry{Commit: c.Hash.String(), Author: c.Author.Name, When: c.Author.When, Subject: subject})
		if c.NumParents() == 0 {
			break
		}
		if c, err = c.Parent(0); err != nil {
			return out, fmt.Errorf("commit %s: parent: %w", short(out[len(out)-1].Commit), err)
		}
	}
	return out, nil
}

// Diff writes the unified diff from commit a to commit b.
func (r *Repo) Diff(a, b string, w io.Writer) error {
	ca, err := r.commit(a)
	if err != nil {
		return err
	}
	cb, err := r.commit(b)
	if err != nil {
		return err
	}
	p, err := ca.Patch(cb)
	if err != nil {
		return fmt.Errorf("diff %s %s: %w", short(a), short(b), err)
	}
	return p.Encode(w)
}

// ChangedPaths lists the paths that differ between commits a and b.
func (r *Repo) ChangedPaths(a, b string) ([]string, error) {
	ca, err := r.commit(a)
	if err != nil {
		return nil, err
	}
	cb, err := r.commit(b)
	if err != nil {
		return nil, err
	}
	ta, err := ca.Tree()
	if err != nil {
		return nil, err
	}
	tb, err := cb.Tree()
	if err != nil {
		return nil, err
	}
	// No rename detection: it reads every blob, and a rename is two
	// changed paths (the old and the new) for the review anyway.
	changes, err := object.DiffTreeWithOptions(context.Background(), ta, tb, &object.DiffTreeOptions{})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ch := range changes {
		name := ch.To.Name
		if name == "" {
			name = ch.From.Name
		}
		out = append(out, name)
	}
	return out, nil
}
