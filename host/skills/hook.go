package skills

import "context"

// Instructions is Index as a turn-loop instructions hook
// (turn.Loop.Instructions): built anew at the start of each turn, so a
// skill_manage change shows from the next turn and never reloads the
// running one.
func Instructions(root string, maxBytes int) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		return Index(root, maxBytes)
	}
}
