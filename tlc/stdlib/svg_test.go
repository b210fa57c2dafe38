package stdlib

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The renderings TLC gives are checked in tlc/check/testdata/SVGModule.tla;
// these tests cover what a spec cannot show there: the file SVGSerialize
// writes, Java's (int), and the errors.

func TestSVGSerialize(t *testing.T) {
	t.Chdir(t.TempDir())
	elem, err := call(t, "SVG", "Circle", 1, 2, 3, T())
	require.NoError(t, err)
	assert.Equal(t, `[attrs |-> [cx |-> "1", cy |-> "2", r |-> "3"], children |-> <<>>, innerText |-> "", name |-> "circle"]`,
		sortedRecord(t, elem))
	assert.Equal(t, `[exitValue |-> 0, stderr |-> "", stdout |-> "Finish writing to the file with success!"]`,
		sortedRecord(t, must(t, "SVG", "SVGSerialize", elem, "frame_", 7)))
	b, err := os.ReadFile("frame_007.svg")
	require.NoError(t, err)
	assert.Equal(t, "<circle cx='1' cy='2' r='3'></circle>", string(b))
	must(t, "SVG", "SVGSerialize", elem, "frame_", 1234)
	_, err = os.Stat("frame_1234.svg")
	assert.NoError(t, err, "no padding beyond 3 digits")

	res := must(t, "SVG", "SVGSerialize", elem, filepath.Join("no", "such", "dir", "f"), 1)
	code, _ := res.(*value.Func).Field("exitValue")
	assert.Equal(t, "1", code.String(), "a file that cannot be written is said in the result, as TLC does")
}

func must(t *testing.T, module, name string, args ...any) value.Value {
	t.Helper()
	v, err := call(t, module, name, args...)
	require.NoError(t, err)
	return v
}

// sortedRecord prints a record with its fields by name, whatever names
// other tests made the printer see.
func sortedRecord(t *testing.T, v value.Value) string {
	t.Helper()
	f := v.(*value.Func)
	s := "["
	for i := range f.Len() {
		if i > 0 {
			s += ", "
		}
		val := f.Values()[i]
		if g, ok := val.(*value.Func); ok && g.IsRecord() {
			s += string(f.Key(i).(value.Str)) + " |-> " + sortedRecord(t, g)
			continue
		}
		s += string(f.Key(i).(value.Str)) + " |-> " + val.String()
	}
	return s + "]"
}

func TestJavaInt(t *testing.T) {
	assert.Equal(t, int64(2), javaInt(2.9))
	assert.Equal(t, int64(-2), javaInt(-2.9), "toward zero, not floor")
	assert.Equal(t, int64(0), javaInt(math.NaN()))
	assert.Equal(t, int64(math.MaxInt32), javaInt(math.Inf(1)))
	assert.Equal(t, int64(math.MinInt32), javaInt(-1e300))
	// PointOnLine divides by 0 as Java does: a difference of 0 gives NaN,
	// so 0; another gives infinity, so the largest int.
	assert.Equal(t, "[x |-> 0, y |-> 2147483647]",
		sortedRecord(t, must(t, "SVG", "PointOnLine", R("x", 4, "y", 1), R("x", 4, "y", 5), 0)))
}

func TestSVGErrors(t *testing.T) {
	failsWith(t, []string{"SVGElemToString: an SVG element must be a record, not <<1>>"}, "SVG", "SVGElemToString", T(1))
	failsWith(t, []string{"SVGElemToString: the element has no field attrs"}, "SVG", "SVGElemToString", R("name", "g"))
	bad := R("name", "g", "attrs", R("k", 1), "children", T(), "innerText", "")
	failsWith(t, []string{"SVGElemToString: the attribute k must be a string, not 1"}, "SVG", "SVGElemToString", bad)
	badChild := R("name", "g", "attrs", T(), "children", T(3), "innerText", "")
	failsWith(t, []string{"SVGElemToString: an SVG element must be a record, not 3"}, "SVG", "SVGElemToString", badChild)
	failsWith(t, []string{"Line: the attributes must be a record, not 5"}, "SVG", "Line", 1, 2, 3, 4, 5)
	failsWith(t, []string{"NodeOfRingNetwork: fourth argument is not"}, "SVG", "NodeOfRingNetwork", 1, 2, 3, "a", 5)
	failsWith(t, []string{"PointOnLine: first argument is not a point"}, "SVG", "PointOnLine", R("x", 1), R("x", 1, "y", 2), 1)
	failsWith(t, []string{"NodesOfDirectedMultiGraph is not supported"}, "SVG", "NodesOfDirectedMultiGraph", S(), S(), R())
}

func TestCausalOrderErrors(t *testing.T) {
	entry := func(node int, vc value.Value) value.Value { return R("node", node, "vc", vc) }
	clock := op1f(func(e value.Value) (value.Value, error) { v, _ := e.(*value.Func).Field("vc"); return v, nil })
	node := op1f(func(e value.Value) (value.Value, error) { v, _ := e.(*value.Func).Field("node"); return v, nil })
	dom := op1f(func(c value.Value) (value.Value, error) { return c.(*value.Func).Domain(), nil })

	// Node 1's clock says it saw node 0's second entry, which the log
	// does not have.
	gap := T(entry(0, F(0, 1)), entry(1, F(0, 2, 1, 1)))
	failsWith(t, []string{"CausalOrder: an entry's clock has time 2 for node 0, which has 1 entries"}, "VectorClocks", "CausalOrder", gap, clock, node, dom)
	// Two entries that each saw the other.
	cycle := T(entry(0, F(0, 1, 1, 1)), entry(1, F(0, 1, 1, 1)))
	failsWith(t, []string{"CausalOrder: the clocks order no entry before 2 of the 2 entries"}, "VectorClocks", "CausalOrder", cycle, clock, node, dom)
	failsWith(t, []string{"CausalOrder: the clock of an entry of node 5 has no time for it"}, "VectorClocks", "CausalOrder", T(entry(5, F(0, 1))), clock, node, dom)
	failsWith(t, []string{"IsCausalOrder: a clock's value is not a number"}, "VectorClocks", "IsCausalOrder", T(entry(0, F(0, "a")), entry(0, F(0, 1))), clock)
	failsWith(t, []string{"IsCausalOrder: a clock is not a function: 3"}, "VectorClocks", "IsCausalOrder", T(3), idOp)
}
