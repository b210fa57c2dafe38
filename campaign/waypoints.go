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
	"github.com/modelfuzz/modelfuzz/tlc/sim"
	"github.com/modelfuzz/modelfuzz/tlc/syntax"
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
// The waypoints are named after the tuple's elements when they are
// names, else DEF[1], DEF[2], ...
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
	names, err := waypointNames(file, syntax.MainModule(file, mods), def)
	if err != nil {
		return nil, fmt.Errorf("--waypoints: %v", err)
	}
	spec.Extend, spec.View, spec.NoView = file, def, false
	m, err := models.Load(spec)
	if err != nil {
		return nil, fmt.Errorf("--waypoints %s: %v", arg, err)
	}
	s, err := sim.New(m, 0)
	if err != nil {
		return nil, fmt.Errorf("--waypoints %s: %v", arg, err)
	}
	return &guidance.Waypoints{Names: names, Mapper: mp, Sim: s}, nil
}

// waypointNames finds def in mod and names its tuple's elements.
func waypointNames(file string, mod *syntax.Module, def string) ([]string, error) {
	for _, u := range mod.Units {
		d, ok := u.(*syntax.OpDef)
		if !ok || d.Name != def {
			continue
		}
		if len(d.Params) > 0 {
			return nil, fmt.Errorf("%s:%d:%d: %s takes parameters; the waypoints are a tuple of predicates", file, d.Pos.Line, d.Pos.Col, def)
		}
		t, ok := d.Body.(*syntax.Tuple)
		if !ok || len(t.Elems) == 0 {
			return nil, fmt.Errorf("%s:%d:%d: %s is not a tuple of predicates (write %s == <<P1, P2, ...>>)", file, d.Pos.Line, d.Pos.Col, def, def)
		}
		names := make([]string, len(t.Elems))
		for i, e := range t.Elems {
			if a, ok := e.(*syntax.OpApp); ok && len(a.Args) == 0 && len(a.Path) == 0 {
				names[i] = a.Name
			} else if id, ok := e.(*syntax.Ident); ok {
				names[i] = id.Name
			} else {
				names[i] = def + "[" + strconv.Itoa(i+1) + "]"
			}
		}
		return names, nil
	}
	return nil, fmt.Errorf("%s: module %s defines no %s (the tuple of waypoints)", file, mod.Name, def)
}
