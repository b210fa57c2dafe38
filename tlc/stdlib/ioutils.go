package stdlib

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The community module IOUtils, as far as specs that read their input need
// it: IOEnv and atoi. The operators that run processes or write files
// (IOExec, Serialize, ...) are not provided: a spec that uses one gets an
// unknown-operator error.
//
// IOEnv is the environment as a record from variable names to string
// values, as TLC builds it from System.getenv(). A Context implementing
// EnvContext supplies the environment (trace validation runs several
// traces in one process, each with its own JSON=...); otherwise it is the
// process's environment.

// EnvContext is implemented by a Context that supplies IOEnv's
// environment. A nil map means the process's environment.
type EnvContext interface {
	Env() map[string]string
}

func registerIOUtils() {
	def("IOUtils",
		&Builtin{Name: "IOEnv", Input: true, Fn: func(ctx Context, _ []Arg) (value.Value, error) {
			var env map[string]string
			if ec, ok := ctx.(EnvContext); ok {
				env = ec.Env()
			}
			if env == nil {
				env = ProcessEnv()
			}
			return envRecord(env)
		}},
		&Builtin{Name: "atoi", Arity: 1, Fn: op1(atoi)},
	)
}

// ProcessEnv returns the process's environment as a map.
func ProcessEnv() map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			env[k] = v
		}
	}
	return env
}

func envRecord(env map[string]string) (value.Value, error) {
	names := slices.Sorted(maps.Keys(env))
	vals := make([]value.Value, len(names))
	for i, k := range names {
		vals[i] = value.Str(env[k])
	}
	r, err := value.Record(names, vals)
	return r, wrap("IOEnv", err)
}

// atoi is atoi(s): the integer the string s writes in decimal, with an
// optional sign, as Java's Integer.parseInt reads it (32 bits).
func atoi(v value.Value) (value.Value, error) {
	s, err := strArg("atoi", 0, 1, v)
	if err != nil {
		return nil, err
	}
	i, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("atoi: %s is not the decimal form of a 32-bit integer", show(v))
	}
	return value.IntOf(i), nil
}
