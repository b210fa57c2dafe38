package schedule

// ModelAction is one step of an execution mapped onto a TLA+ model: the
// name of an action operator of the model and the values of its formal
// parameters. Values are JSON-shaped: int64, string (also a model value's
// name), bool, []any (a tuple) or map[string]any (a record).
type ModelAction struct {
	Name   string         `json:"name"`
	Params map[string]any `json:"params,omitempty"`
	Step   int            `json:"-"` // the input step whose events it maps
	// Event is the index in the execution's trace of the event it maps
	// (several actions may map one event): messages about the action name
	// that event, which means the same thing in an input and in its
	// minimized form, where step and action numbers differ.
	Event int `json:"-"`
}

// Mapper turns an adapter's trace into the actions of one model. Mappers
// are deterministic and know nothing of TLA+ evaluation.
type Mapper interface {
	Map(in *Input, ex *Execution) ([]ModelAction, error)
}
