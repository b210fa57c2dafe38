package eval

import (
	"fmt"
	"strings"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// ctx is the state an evaluation runs in. It is owned by one goroutine.
type ctx struct {
	m    *Model
	cur  []value.Value // the current state (unprimed variables)
	next []value.Value // the next state being built (primed variables); nil entries are unassigned
	// primed > 0 while evaluating inside e': variables read from next.
	primed int
	// initMode: enumerating initial states; cur and next are the same
	// partial state, and x = e / x \in S assign x.
	initMode bool
	level    int
}

// newCtx returns an evaluation context for model m.
func (m *Model) newCtx() *ctx { return &ctx{m: m} }

// save returns a function that restores the context's state: evaluations
// nest (a callback of an enumeration evaluates an invariant).
func (c *ctx) save() func() {
	cur, next, primed, initMode := c.cur, c.next, c.primed, c.initMode
	return func() { c.cur, c.next, c.primed, c.initMode = cur, next, primed, initMode }
}

// Print implements stdlib.Context.
func (c *ctx) Print(line string) { c.m.print(line) }

// TLCGet implements stdlib.Context.
func (c *ctx) TLCGet(key value.Value) (value.Value, error) {
	switch k := key.(type) {
	case value.Str:
		switch string(k) {
		case "level":
			return value.IntOf(int64(c.level)), nil
		case "config":
			return c.m.configRecord()
		case "stats":
			return c.m.statsRecord()
		}
		if strings.HasPrefix(string(k), "-D") {
			// TLC answers Java system properties. The one specs ask for
			// says whether action composition (\cdot) is enabled: it
			// always is here.
			if string(k) == "-Dtlc2.tool.impl.Tool.cdot" {
				return value.Str("true"), nil
			}
			return nil, fmt.Errorf("TLCGet(%q): Java system properties are not available (there is no JVM)", string(k))
		}
		return nil, fmt.Errorf("TLCGet(%s) is not supported", k)
	case value.Int:
		return c.m.registers.get(int(k))
	}
	return nil, fmt.Errorf("TLCGet: unsupported key %s", key)
}

// TLCSet implements stdlib.Context.
func (c *ctx) TLCSet(key value.Value, v value.Value) error {
	if k, ok := key.(value.Int); ok {
		return c.m.registers.set(int(k), v)
	}
	if s, ok := key.(value.Str); ok && strings.HasPrefix(string(s), "exit") {
		return nil
	}
	return fmt.Errorf("TLCSet: unsupported key %s", key)
}
