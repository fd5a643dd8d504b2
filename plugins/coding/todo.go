package main

import (
	_ "embed"
	"fmt"
	"strings"

	"demiurge.dev/sdk"
	"demiurge.dev/shared/toolsetv1"
)

//go:embed todo.md
var todoDoc string

type todoItem struct {
	ID      string `json:"id" jsonschema:"minLength=1,maxLength=64,pattern=^[A-Za-z0-9][A-Za-z0-9._-]*$" jsonschema_description:"A short id of your choice, unique in the list (letters, digits, '.', '_', '-')."`
	Content string `json:"content" jsonschema:"minLength=1,maxLength=500" jsonschema_description:"What the step is, in one line."`
	Status  string `json:"status" jsonschema:"enum=pending,enum=in_progress,enum=completed" jsonschema_description:"pending, in_progress (at most one item) or completed."`
}

type todoParams struct {
	Todos *[]todoItem `json:"todos,omitempty" jsonschema:"maxItems=50" jsonschema_description:"The whole new list, in order; it replaces the stored one. Leave out to read the list; [] clears it."`
}

// todoPayload is the result's structured form.
type todoPayload struct {
	Todos   []todoItem `json:"todos"`
	Updated string     `json:"updated,omitempty"`
}

func newTodo() sdk.Tool {
	return sdk.Define(sdk.Spec{
		Name: "todo", Description: todoDoc, Effect: sdk.EffectControl,
		HostServices: []string{"todo"},
		Metadata:     sdk.Metadata{Risk: "low", ApprovalPolicy: "auto", DisplayPolicy: "summary"},
	}, todo)
}

func todo(ctx *sdk.Context, p todoParams) (*sdk.Result, error) {
	var resp *toolsetv1.TodoResponse
	var err error
	if p.Todos == nil {
		resp, err = ctx.TodoRead()
	} else {
		items := make([]*toolsetv1.TodoItem, len(*p.Todos))
		for i, it := range *p.Todos {
			items[i] = &toolsetv1.TodoItem{Id: it.ID, Content: it.Content, Status: it.Status}
		}
		resp, err = ctx.TodoWrite(items)
	}
	switch {
	case sdk.IsInvalid(err):
		return sdk.Errorf("invalid_todos", "todo: %s; the stored list is unchanged", sdk.HostMessage(err)), nil
	case err != nil:
		return nil, fmt.Errorf("todo: %s", sdk.HostMessage(err))
	}
	out := todoPayload{Todos: []todoItem{}, Updated: resp.GetUpdated()}
	for _, it := range resp.GetItems() {
		out.Todos = append(out.Todos, todoItem{ID: it.GetId(), Content: it.GetContent(), Status: it.GetStatus()})
	}
	return &sdk.Result{Content: renderTodos(out.Todos), Structured: out}, nil
}

// renderTodos is the list as a checklist with a count line.
func renderTodos(items []todoItem) string {
	if len(items) == 0 {
		return "The task list is empty.\n"
	}
	var b strings.Builder
	done := 0
	for _, it := range items {
		mark := "[ ]"
		switch it.Status {
		case "in_progress":
			mark = "[>]"
		case "completed":
			mark = "[x]"
			done++
		}
		fmt.Fprintf(&b, "%s %s: %s\n", mark, it.ID, it.Content)
	}
	fmt.Fprintf(&b, "(%d of %d completed)\n", done, len(items))
	return b.String()
}
