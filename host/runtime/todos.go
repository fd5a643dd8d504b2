package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"
)

// BucketTodos holds each session's task list (the todo tool), keyed by
// principal NUL session.
const BucketTodos = "todos"

// Bounds of a task list: what the model may keep, checked on every write.
const (
	MaxTodoItems   = 50
	MaxTodoContent = 500
	MaxTodoID      = 64
	MaxTodoBytes   = 16 << 10
)

// Todo statuses.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

// TodoItem is one entry of a task list.
type TodoItem struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	Status  string `json:"status"`
}

// TodoList is a session's task list as stored.
type TodoList struct {
	Items   []TodoItem `json:"items"`
	Updated time.Time  `json:"updated"`
}

// ErrInvalidTodos is what a list that breaks a rule gets.
var ErrInvalidTodos = errors.New("the task list is refused")

var todoIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// CheckTodos enforces the task list's rules: at most MaxTodoItems items
// and MaxTodoBytes of content, unique ids of letters, digits, '.', '_'
// and '-', non-empty content, a known status, and at most one item in
// progress (one thing is worked on at a time).
func CheckTodos(items []TodoItem) error {
	if len(items) > MaxTodoItems {
		return fmt.Errorf("%w: %d items, at most %d", ErrInvalidTodos, len(items), MaxTodoItems)
	}
	ids := map[string]bool{}
	inProgress, size := "", 0
	for i, it := range items {
		switch {
		case it.ID == "" || len(it.ID) > MaxTodoID || !todoIDPattern.MatchString(it.ID):
			return fmt.Errorf("%w: item %d: id must be 1 to %d letters, digits, '.', '_' or '-'", ErrInvalidTodos, i+1, MaxTodoID)
		case ids[it.ID]:
			return fmt.Errorf("%w: item %d: id %q is used twice", ErrInvalidTodos, i+1, it.ID)
		case !utf8.ValidString(it.Content) || strings.TrimSpace(it.Content) == "":
			return fmt.Errorf("%w: item %q: content must be non-empty UTF-8 text", ErrInvalidTodos, it.ID)
		case utf8.RuneCountInString(it.Content) > MaxTodoContent:
			return fmt.Errorf("%w: item %q: content is longer than %d characters", ErrInvalidTodos, it.ID, MaxTodoContent)
		}
		switch it.Status {
		case TodoPending, TodoCompleted:
		case TodoInProgress:
			if inProgress != "" {
				return fmt.Errorf("%w: items %q and %q are both in_progress; at most one item is in progress", ErrInvalidTodos, inProgress, it.ID)
			}
			inProgress = it.ID
		default:
			return fmt.Errorf("%w: item %q: status must be pending, in_progress or completed", ErrInvalidTodos, it.ID)
		}
		ids[it.ID] = true
		size += len(it.ID) + len(it.Content)
	}
	if size > MaxTodoBytes {
		return fmt.Errorf("%w: %d bytes of ids and content, at most %d", ErrInvalidTodos, size, MaxTodoBytes)
	}
	return nil
}

func todoKey(principal, session string) ([]byte, error) {
	if principal == "" || session == "" {
		return nil, errors.New("a task list needs a principal and a session")
	}
	return []byte(principal + "\x00" + session), nil
}

// Todos is the task list of principal's session; an empty list (zero
// Updated) when none was written.
func (s *Store) Todos(principal, session string) (TodoList, error) {
	key, err := todoKey(principal, session)
	if err != nil {
		return TodoList{}, err
	}
	var list TodoList
	err = s.view(func(tx *bolt.Tx) error {
		v := tx.Bucket([]byte(BucketTodos)).Get(key)
		if v == nil {
			return nil
		}
		if err := json.Unmarshal(v, &list); err != nil {
			return fmt.Errorf("decode the task list of %s: %w", session, err)
		}
		return nil
	})
	if list.Items == nil {
		list.Items = []TodoItem{}
	}
	return list, err
}

// ReplaceTodos stores items as the whole task list of principal's session,
// durably, after CheckTodos; an empty list clears it.
func (s *Store) ReplaceTodos(ctx context.Context, principal, session string, items []TodoItem) (TodoList, error) {
	key, err := todoKey(principal, session)
	if err != nil {
		return TodoList{}, err
	}
	if err := CheckTodos(items); err != nil {
		return TodoList{}, err
	}
	list := TodoList{Items: append([]TodoItem{}, items...), Updated: time.Now().UTC()}
	v, err := json.Marshal(list)
	if err != nil {
		return TodoList{}, fmt.Errorf("encode the task list of %s: %w", session, err)
	}
	err = s.update(ctx, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(BucketTodos))
		if len(items) == 0 {
			return b.Delete(key)
		}
		return b.Put(key, v)
	})
	return list, err
}
