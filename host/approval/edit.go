package approval

import "demiurge.dev/shared/turnevent"

// FileEdit is what a file write (write_file, patch) does to its file, for
// a front end that shows the change as a diff (turnevent.FileEdit, where
// the event a front end reads carries it).
type FileEdit = turnevent.FileEdit

// MaxEditText bounds each text of a FileEdit (the file before, the file
// after): a longer one gives no FileEdit.
const MaxEditText = 256 << 10
