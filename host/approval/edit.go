package approval

// FileEdit is what a file write (write_file, patch) does to its file, for
// a front end that shows the change as a diff (an editor over ACP): the
// whole text before and after, both redacted (credential formats and the
// call's secrets replaced). The host fills it only for a path inside the
// workspace that is not sensitive, and only when both texts are within
// MaxEditText; otherwise there is none and the card's preview stands.
type FileEdit struct {
	// Path is the file's absolute real path.
	Path string `json:"path"`
	// OldText is the file's text before the write; NewFile says there
	// was no file (OldText is then empty).
	OldText string `json:"old_text"`
	NewFile bool   `json:"new_file,omitempty"`
	// NewText is the file's text once the write is made.
	NewText string `json:"new_text"`
}

// MaxEditText bounds each text of a FileEdit (the file before, the file
// after): a longer one gives no FileEdit.
const MaxEditText = 256 << 10
