package campaign

import (
	"fmt"
	"github.com/modelfuzz/modelfuzz/internal/jsonerr"
	"os"
	"strconv"
	"strings"

	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/schedule"
	"github.com/modelfuzz/modelfuzz/tlc"
	"github.com/modelfuzz/modelfuzz/tlc/syntax"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// DefaultWaypoints is the definition a waypoints module lists its
// sequence in when --waypoints names none.
const DefaultWaypoints = "Waypoints"

// LoadWaypoints reads a waypoints module, "FILE.tla" or "FILE.tla:DEF": a
// TLA+ module that EXTENDS the model (spec) and defines DEF (Waypoints by
// default) as a tuple of predicates over the model's variables, e.g.
//
//	Waypoints == <<SomeoneCrashed, AllBack, LeaderBehindFollower>>
//
// or as any expression whose value is one (Waypoints == TwoRestarts, a
// tuple defined above it): the engine evaluates DEF in the model's initial
// states, and what it checks is that value, not how DEF is written. The
// waypoints are named after the tuple's elements where the tuple is
// written out with names (through definitions that only name another),
// else DEF[1], DEF[2], ...
func LoadWaypoints(spec models.Spec, arg string, mp schedule.Mapper) (*guidance.Waypoints, error) {
	file, def := arg, DefaultWaypoints
	if i := strings.LastIndex(arg, ".tla:"); i >= 0 {
		file, def = arg[:i+4], arg[i+5:]
	}
	if def == "" {
		return nil, fmt.Errorf("--waypoints %s: no definition after the colon", arg)
	}
	if _, err := os.Stat(file); err != nil {
		return nil, fmt.Errorf("--waypoints %v", jsonerr.FileError(file, err))
	}
	mods, err := syntax.ParseFile(file)
	if err != nil {
		return nil, fmt.Errorf("--waypoints: %v", err)
	}
	mod := syntax.MainModule(file, mods)
	d, err := waypointDef(file, mod, def)
	if err != nil {
		return nil, fmt.Errorf("--waypoints: %v", err)
	}
	spec.Extend, spec.View, spec.NoView = file, def, false
	m, err := models.Load(spec)
	if err != nil {
		return nil, fmt.Errorf("--waypoints %s: %v", arg, err)
	}
	n, err := waypointCount(m, def)
	if err != nil {
		return nil, fmt.Errorf("--waypoints: %s:%d:%d: %v", file, d.Pos.Line, d.Pos.Col, err)
	}
	s, err := tlc.NewSimulator(m, 0)
	if err != nil {
		return nil, fmt.Errorf("--waypoints %s: %v", arg, err)
	}
	return &guidance.Waypoints{Names: waypointNames(mod, d, n), Mapper: mp, Sim: s}, nil
}

// waypointDef finds def in mod: a definition without parameters.
func waypointDef(file string, mod *syntax.Module, def string) (*syntax.OpDef, error) {
	if d := opDef(mod, def); d != nil {
		if len(d.Params) > 0 {
			return nil, fmt.Errorf("%s:%d:%d: %s takes parameters; the waypoints are a tuple of predicates", file, d.Pos.Line, d.Pos.Col, def)
		}
		return d, nil
	}
	return nil, fmt.Errorf("%s: module %s defines no %s (the tuple of waypoints)", file, mod.Name, def)
}

func opDef(mod *syntax.Module, name string) *syntax.OpDef {
	for _, u := range mod.Units {
		if d, ok := u.(*syntax.OpDef); ok && d.Name == name {
			return d
		}
	}
	return nil
}

// waypointCount evaluates def in every initial state of m: it must be a
// non-empty tuple of booleans, of the same length in each. It returns
// that length.
func waypointCount(m *tlc.Model, def string) (int, error) {
	ev := m.NewEvaluator()
	ev.Quiet()
	n := -1
	err := ev.Init(func(s []tlc.Value) error {
		v, err := ev.Definition(def, s)
		if err != nil {
			return fmt.Errorf("evaluating %s in an initial state of the model: %v", def, err)
		}
		elems, err := value.SeqElems(def, v)
		if err != nil || len(elems) == 0 {
			return fmt.Errorf("%s is not a tuple of predicates: its value is %s (write %s == <<P1, P2, ...>>)", def, shortValue(v), def)
		}
		for i, e := range elems {
			if _, ok := e.(value.Bool); !ok {
				return fmt.Errorf("%s is not a tuple of predicates: its element %d is %s, not TRUE or FALSE", def, i+1, shortValue(e))
			}
		}
		if n >= 0 && n != len(elems) {
			return fmt.Errorf("%s has %d elements in one initial state and %d in another", def, n, len(elems))
		}
		n = len(elems)
		return nil
	})
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, fmt.Errorf("the model has no initial state to evaluate %s in", def)
	}
	return n, nil
}

// shortValue prints v as TLC does, cut to a length that fits a line.
func shortValue(v tlc.Value) string {
	s := v.String()
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// waypointNames names the n waypoints of d: after the elements of the
// tuple d is written as, following definitions that only name another
// definition of mod (Waypoints == TwoRestarts), when those elements are
// names and there are n of them; else DEF[1], DEF[2], ...
func waypointNames(mod *syntax.Module, d *syntax.OpDef, n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = d.Name + "[" + strconv.Itoa(i+1) + "]"
	}
	body, seen := d.Body, map[string]bool{d.Name: true}
	for {
		name, ok := nameOf(body)
		if !ok || seen[name] {
			break
		}
		seen[name] = true
		next := opDef(mod, name)
		if next == nil || len(next.Params) > 0 {
			return names
		}
		body = next.Body
	}
	t, ok := body.(*syntax.Tuple)
	if !ok || len(t.Elems) != n {
		return names
	}
	for i, e := range t.Elems {
		if name, ok := nameOf(e); ok {
			names[i] = name
		}
	}
	return names
}

// nameOf is the name e consists of, if it is one (a definition without
// arguments, or an identifier).
func nameOf(e syntax.Expr) (string, bool) {
	switch x := e.(type) {
	case *syntax.OpApp:
		if len(x.Args) == 0 && len(x.Path) == 0 {
			return x.Name, true
		}
	case *syntax.Ident:
		return x.Name, true
	}
	return "", false
}
