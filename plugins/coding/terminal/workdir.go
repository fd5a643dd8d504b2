package terminal

// A command's working directory is pinned (shared/pindir): opened once,
// by a path that may hold no symlink and beneath the workspace root, and
// handed to the child by descriptor.

// testHookPinned runs after the directory is pinned and before the shell
// starts; tests swap the directory there.
var testHookPinned func()
