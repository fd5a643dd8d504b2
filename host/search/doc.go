// Package search is session history search: a full-text index of the
// stored messages (bleve, on disk under the state directory) kept up to
// date through runtime.Store.ObserveMessages, and the owner-scoped queries
// of the session_search tool over it (history.go).
package search
