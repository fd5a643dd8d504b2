package core

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Load reads dir/agent.yaml. Every error is a *LoadError.
func Load(dir string) (*Core, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, &LoadError{File: dir, Msg: "is a file, not an agent core directory; give the directory that holds agent.yaml"}
	}
	return LoadFile(filepath.Join(dir, FileName))
}

// LoadFile reads an agent.yaml at path; slots and workspace are relative to
// the directory holding it. Every error is a *LoadError.
func LoadFile(path string) (*Core, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &LoadError{File: path, Msg: fmt.Sprintf("cannot make the path absolute: %v", err), Err: err}
	}
	data, err := readFile(abs)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return nil, &LoadError{File: abs, Msg: fmt.Sprintf("cannot resolve the core directory: %v", err), Err: err}
	}
	c, err := parse(data, abs, dir)
	if err != nil {
		return nil, err
	}
	if c.Slots, err = loadSlots(dir); err != nil {
		return nil, err
	}
	if c.Pipelines, err = loadPipelines(dir, c.Slots); err != nil {
		return nil, err
	}
	if c.PolicyExamples, err = loadPolicyExamples(dir); err != nil {
		return nil, err
	}
	return c, nil
}

// readFile reads at most MaxFileSize bytes of a regular file, without
// blocking on a FIFO or device named by mistake.
func readFile(path string) ([]byte, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		msg := fmt.Sprintf("cannot open the agent core: %v", err)
		if errors.Is(err, fs.ErrNotExist) {
			msg = "no agent core here: " + FileName + " does not exist"
			if _, yml := os.Stat(filepath.Join(filepath.Dir(path), "agent.yml")); yml == nil {
				msg += "; agent.yml does, rename it to agent.yaml"
			}
		}
		return nil, &LoadError{File: path, Msg: msg, Err: err}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, &LoadError{File: path, Msg: fmt.Sprintf("cannot stat the agent core: %v", err), Err: err}
	}
	if !fi.Mode().IsRegular() {
		return nil, &LoadError{File: path, Msg: fmt.Sprintf("is not a regular file (%s); agent.yaml must be a plain file", fi.Mode().Type())}
	}
	if fi.Size() > MaxFileSize {
		return nil, &LoadError{File: path, Msg: fmt.Sprintf("is %d bytes, over the %d-byte limit; an agent core's agent.yaml is a short declaration", fi.Size(), MaxFileSize)}
	}
	// Read one byte past the limit: the file may grow after Stat.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, &LoadError{File: path, Msg: fmt.Sprintf("cannot read the agent core: %v", err), Err: err}
	}
	return data, nil
}
