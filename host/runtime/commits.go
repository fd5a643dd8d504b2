package runtime

// Commits is how many transactions the store's writer has committed: each
// is one durable sync of the file (two fdatasyncs in bbolt). Benchmarks
// and tests read it to count a step's commits.
func (s *Store) Commits() uint64 { return s.commits.Load() }
