package stdlib

import (
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The community module SVG: records that stand for SVG elements
// ([name, attrs, children, innerText]), the constructors of the common
// ones, and what TLC computes in Java for it:
//
//   - SVGElemToString renders an element: attributes in the order TLC
//     keeps a record's fields (value.PrintOrder: the names as the spec's
//     parser saw them, then SVG's own; names that only appear as strings,
//     such as "stroke-width", come last, by name, where TLC's order
//     depends on its interning), "_" in an attribute's name written "-",
//     values single-quoted, "<<" and ">>" of the inner text escaped;
//     children are a sequence, or a record or function whose values are
//     taken in domain order.
//   - NodeOfRingNetwork and PointOnLine compute in floating point and
//     truncate toward zero to a 32-bit integer, as Java's (int) does
//     (PointOnLine is not the module's \div definition for negative
//     differences).
//   - SVGSerialize writes the rendering to PREFIX + the frame number
//     padded to 3 digits + ".svg" in the working directory and returns
//     IOUtils' Serialize record ([exitValue, stdout, stderr]).
//   - NodesOfDirectedMultiGraph lays a graph out with the jungrapht
//     library's algorithms in TLC: not provided (an error says so).

// svgNames are the identifiers of the community module's text, and the
// strings it uses as field names, in order: TLC's parser interns them
// after the spec's own, which sets the order of the fields of the records
// SVG builds (see value.SeeNames).
var svgNames = []string{"SVG", "Naturals", "Sequences", "Integers", "TLC", "FiniteSets",
	"Merge", "r1", "r2", "D1", "D2", "k", "SVGElem", "_name", "_attrs", "_children", "_innerText",
	"name", "attrs", "children", "innerText", "Line", "x1", "y1", "x2", "y2", "svgAttrs", "ToString",
	"Circle", "cx", "cy", "r", "Rect", "x", "y", "w", "h", "width", "height", "Text", "text",
	"Image", "href", "xlink:href", "Group", "Svg", "SVGDoc", "vbX", "vbY", "vbW", "vbH", "xmlns:xlink", "xmlns", "viewBox", "SVGElemToString", "elem",
	"NodeOfRingNetwork", "n", "m", "NodesOfDirectedMultiGraph", "nodes", "edges", "options", "f",
	"PointOnLine", "from", "to", "segment", "SVGSerialize", "svg", "frameNamePrefix", "frameNumber",
	"IO", "IOUtils", "Serialize", "zeroPadN", "format", "charset", "openOptions",
	// IOUtils' text, which SVGSerialize instantiates: its result's fields.
	"exitValue", "stdout", "stderr"}

func registerSVG() {
	seeNames("SVG", svgNames...)
	def("SVG",
		&Builtin{Name: "SVGElem", Arity: 4, Fn: func(_ Context, a []Arg) (value.Value, error) {
			return svgElem(a[0].V, a[1].V, a[2].V, a[3].V)
		}},
		&Builtin{Name: "Line", Arity: 5, Fn: func(_ Context, a []Arg) (value.Value, error) {
			return svgShape("Line", "line", []string{"x1", "y1", "x2", "y2"}, a)
		}},
		&Builtin{Name: "Circle", Arity: 4, Fn: func(_ Context, a []Arg) (value.Value, error) {
			return svgShape("Circle", "circle", []string{"cx", "cy", "r"}, a)
		}},
		&Builtin{Name: "Rect", Arity: 5, Fn: func(_ Context, a []Arg) (value.Value, error) {
			return svgShape("Rect", "rect", []string{"x", "y", "width", "height"}, a)
		}},
		&Builtin{Name: "Text", Arity: 4, Fn: func(_ Context, a []Arg) (value.Value, error) {
			attrs, err := svgAttrs("Text", []string{"x", "y"}, []value.Value{svgString(a[0].V), svgString(a[1].V)}, a[3].V)
			if err != nil {
				return nil, err
			}
			return svgElem(value.Str("text"), attrs, value.EmptyFunc, a[2].V)
		}},
		&Builtin{Name: "Image", Arity: 6, Fn: func(_ Context, a []Arg) (value.Value, error) {
			attrs, err := svgAttrs("Image", []string{"xlink:href", "x", "y", "width", "height"},
				[]value.Value{a[4].V, svgString(a[0].V), svgString(a[1].V), svgString(a[2].V), svgString(a[3].V)}, a[5].V)
			if err != nil {
				return nil, err
			}
			return svgElem(value.Str("image"), attrs, value.EmptyFunc, value.Str(""))
		}},
		&Builtin{Name: "Group", Arity: 2, Fn: func(_ Context, a []Arg) (value.Value, error) {
			return svgElem(value.Str("g"), a[1].V, a[0].V, value.Str(""))
		}},
		&Builtin{Name: "Svg", Arity: 2, Fn: func(_ Context, a []Arg) (value.Value, error) {
			return svgElem(value.Str("svg"), a[1].V, a[0].V, value.Str(""))
		}},
		&Builtin{Name: "SVGDoc", Arity: 6, Fn: func(_ Context, a []Arg) (value.Value, error) {
			box := make([]string, 4)
			for i := range box {
				box[i] = a[1+i].V.String()
			}
			attrs, err := svgAttrs("SVGDoc", []string{"xmlns:xlink", "xmlns", "viewBox"},
				[]value.Value{value.Str("http://www.w3.org/1999/xlink"), value.Str("http://www.w3.org/2000/svg"),
					value.Str(strings.Join(box, " "))}, a[5].V)
			if err != nil {
				return nil, err
			}
			return svgElem(value.Str("svg"), attrs, value.Tuple(a[0].V), value.Str(""))
		}},
		&Builtin{Name: "SVGElemToString", Arity: 1, Fn: op1(func(e value.Value) (value.Value, error) {
			var b strings.Builder
			if err := svgRender(&b, e); err != nil {
				return nil, err
			}
			return value.Str(b.String()), nil
		})},
		&Builtin{Name: "NodeOfRingNetwork", Arity: 5, Fn: func(_ Context, a []Arg) (value.Value, error) {
			var v [5]int64
			for i := range v {
				n, err := intArg("NodeOfRingNetwork", i, 5, a[i].V)
				if err != nil {
					return nil, err
				}
				v[i] = n
			}
			cx, cy, r, n, m := float64(v[0]), float64(v[1]), float64(v[2]), float64(v[3]), float64(v[4])
			angle := 2 * math.Pi / m * n
			return svgPoint(javaInt(cx+r*math.Cos(angle)), javaInt(cy+r*math.Sin(angle))), nil
		}},
		&Builtin{Name: "PointOnLine", Arity: 3, Fn: op3(func(from, to, seg value.Value) (value.Value, error) {
			fx, fy, err := svgCoords("PointOnLine", 0, from)
			if err != nil {
				return nil, err
			}
			tx, ty, err := svgCoords("PointOnLine", 1, to)
			if err != nil {
				return nil, err
			}
			s, err := intArg("PointOnLine", 2, 3, seg)
			if err != nil {
				return nil, err
			}
			d := float64(s)
			return svgPoint(javaInt(float64(fx)+float64(tx-fx)/d), javaInt(float64(fy)+float64(ty-fy)/d)), nil
		})},
		&Builtin{Name: "NodesOfDirectedMultiGraph", Arity: 3, Fn: op3(func(_, _, _ value.Value) (value.Value, error) {
			return nil, fmt.Errorf("NodesOfDirectedMultiGraph is not supported: TLC lays the graph out with the jungrapht library's algorithms, which modelfuzz does not have")
		})},
		&Builtin{Name: "SVGSerialize", Arity: 3, SideEffect: true, Fn: op3(svgSerialize)},
	)
}

// svgString is ToString(v).
func svgString(v value.Value) value.Value { return value.Str(v.String()) }

// svgElem is the record of an element.
func svgElem(name, attrs, children, text value.Value) (value.Value, error) {
	return record([]string{"name", "attrs", "children", "innerText"}, name, attrs, children, text)
}

// record is value.Record as a Value.
func record(names []string, vals ...value.Value) (value.Value, error) {
	r, err := value.Record(names, vals)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// svgShape builds the element of a shape whose first arguments are its
// coordinates, and whose last is attrs.
func svgShape(op, tag string, coords []string, a []Arg) (value.Value, error) {
	vals := make([]value.Value, len(coords))
	for i := range coords {
		vals[i] = svgString(a[i].V)
	}
	attrs, err := svgAttrs(op, coords, vals, a[len(coords)].V)
	if err != nil {
		return nil, err
	}
	return svgElem(value.Str(tag), attrs, value.EmptyFunc, value.Str(""))
}

// svgAttrs merges the element's own attributes with the given ones (a
// function, usually a record or <<>>): on a name in both, its own win.
func svgAttrs(op string, names []string, vals []value.Value, given value.Value) (value.Value, error) {
	own, err := value.Record(names, vals)
	if err != nil {
		return nil, wrap(op, err)
	}
	if _, ok := given.(*value.Func); !ok {
		return nil, fmt.Errorf("%s: the attributes must be a record, not %s", op, show(given))
	}
	m, err := value.Merge(own, given)
	return m, wrap(op, err)
}

func svgPoint(x, y int64) value.Value {
	r, _ := record([]string{"x", "y"}, value.IntOf(x), value.IntOf(y))
	return r
}

// javaInt is Java's (int) of a double: toward zero, saturating, NaN 0.
func javaInt(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int64(f)
}

// svgCoords reads a point [x |-> .., y |-> ..].
func svgCoords(op string, i int, p value.Value) (int64, int64, error) {
	f, ok := p.(*value.Func)
	if ok {
		x, okx := f.Field("x")
		y, oky := f.Field("y")
		if okx && oky {
			xi, okx := x.(value.Int)
			yi, oky := y.(value.Int)
			if okx && oky {
				return int64(xi), int64(yi), nil
			}
		}
	}
	return 0, 0, argError(op, i, 3, "a point [x |-> Int, y |-> Int]", p)
}

// svgRender writes the SVG text of element e.
func svgRender(b *strings.Builder, e value.Value) error {
	const op = "SVGElemToString"
	f, ok := e.(*value.Func)
	if !ok || !f.IsRecord() && f.Len() > 0 {
		return fmt.Errorf("%s: an SVG element must be a record, not %s", op, show(e))
	}
	field := func(name string) (value.Value, error) {
		v, ok := f.Field(name)
		if !ok {
			return nil, fmt.Errorf("%s: the element has no field %s: %s", op, name, show(e))
		}
		return v, nil
	}
	str := func(name string, v value.Value) (string, error) {
		s, ok := v.(value.Str)
		if !ok {
			return "", fmt.Errorf("%s: %s must be a string, not %s", op, name, show(v))
		}
		return string(s), nil
	}
	nv, err := field("name")
	if err != nil {
		return err
	}
	name, err := str("the element's name", nv)
	if err != nil {
		return err
	}
	av, err := field("attrs")
	if err != nil {
		return err
	}
	attrs, ok := av.(*value.Func)
	if !ok || !attrs.IsRecord() && attrs.Len() > 0 {
		return fmt.Errorf("%s: the attributes must be a record, not %s", op, show(av))
	}
	cv, err := field("children")
	if err != nil {
		return err
	}
	children, ok := cv.(*value.Func)
	if !ok {
		return fmt.Errorf("%s: the children must be a sequence, a record or a function, not %s", op, show(cv))
	}
	tv, err := field("innerText")
	if err != nil {
		return err
	}
	text, err := str("the inner text", tv)
	if err != nil {
		return err
	}
	b.WriteString("<" + name)
	for _, i := range recordOrder(attrs) {
		s, err := str("the attribute "+string(attrs.Key(i).(value.Str)), attrs.Values()[i])
		if err != nil {
			return err
		}
		b.WriteString(" " + strings.ReplaceAll(string(attrs.Key(i).(value.Str)), "_", "-") + "='" + s + "'")
	}
	b.WriteString(">")
	b.WriteString(strings.ReplaceAll(strings.ReplaceAll(text, "<<", "&lt;&lt;"), ">>", "&gt;&gt;"))
	for _, i := range recordOrder(children) {
		if err := svgRender(b, children.Values()[i]); err != nil {
			return err
		}
	}
	b.WriteString("</" + name + ">")
	return nil
}

// recordOrder is the order of f's values as TLC keeps them: a record's
// fields in print order, other functions in domain order.
func recordOrder(f *value.Func) []int {
	out := make([]int, f.Len())
	for i := range out {
		out[i] = i
	}
	if f.IsRecord() {
		if o := value.PrintOrder(f); o != nil {
			return o
		}
	}
	return out
}

// svgSerialize writes the rendering of an element to a file of its
// frame.
func svgSerialize(svg, prefix, frame value.Value) (value.Value, error) {
	const op = "SVGSerialize"
	p, err := strArg(op, 1, 3, prefix)
	if err != nil {
		return nil, err
	}
	n, err := intArg(op, 2, 3, frame)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	if err := svgRender(&b, svg); err != nil {
		return nil, err
	}
	num := fmt.Sprint(n)
	if len(num) < 3 {
		num = strings.Repeat("0", 3-len(num)) + num
	}
	exit, out, errText := int64(0), "Finish writing to the file with success!", ""
	if err := os.WriteFile(p+num+".svg", []byte(b.String()), 0o644); err != nil {
		exit, out, errText = 1, "", "Serialize error writing to the file: "+err.Error()
	}
	return record([]string{"exitValue", "stdout", "stderr"}, value.IntOf(exit), value.Str(out), value.Str(errText))
}
