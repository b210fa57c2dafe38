package value

import "fmt"

// Bags (the Bags module): a bag is a function from its elements to positive
// integers, the number of copies.

// EmptyBag is the bag with no elements.
var EmptyBag Value = EmptyFunc

// IsABag tells whether b is a bag.
func IsABag(b Value) bool {
	f, ok := b.(*Func)
	if !ok {
		return false
	}
	for _, v := range f.vals {
		if n, ok := v.(Int); !ok || n <= 0 {
			return false
		}
	}
	return true
}

func bagArg(op string, b Value) (*Func, error) {
	if !IsABag(b) {
		return nil, fmt.Errorf("the argument of %s should be a bag, but instead it is %s", op, short(b))
	}
	return b.(*Func), nil
}

// SetToBag is SetToBag(s): every element once.
func SetToBag(s Value) (Value, error) {
	f, err := FuncOver(s, func(Value) (Value, error) { return IntOf(1), nil })
	if err != nil {
		return nil, err
	}
	return f, nil
}

// BagToSet is BagToSet(b), the set of its elements.
func BagToSet(b Value) (Value, error) {
	f, err := bagArg("BagToSet", b)
	if err != nil {
		return nil, err
	}
	return f.Domain(), nil
}

// BagIn is BagIn(e, b).
func BagIn(e, b Value) (bool, error) {
	f, err := bagArg("BagIn", b)
	if err != nil {
		return false, err
	}
	_, ok := f.Lookup(e)
	return ok, nil
}

// CopiesIn is CopiesIn(e, b): how many copies of e b holds.
func CopiesIn(e, b Value) (Value, error) {
	f, err := bagArg("CopiesIn", b)
	if err != nil {
		return nil, err
	}
	if v, ok := f.Lookup(e); ok {
		return v, nil
	}
	return IntOf(0), nil
}

// BagCardinality is BagCardinality(b), the total number of copies.
func BagCardinality(b Value) (Value, error) {
	f, err := bagArg("BagCardinality", b)
	if err != nil {
		return nil, err
	}
	var acc Value = IntOf(0)
	for _, v := range f.vals {
		if acc, err = Add(acc, v); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// BagAdd is a (+) b.
func BagAdd(a, b Value) (Value, error) {
	return bagCombine(`(+)`, a, b, Add)
}

// BagSub is a (-) b: copies of b removed from a, elements with no copies
// left dropped.
func BagSub(a, b Value) (Value, error) {
	return bagCombine(`(-)`, a, b, Sub)
}

func bagCombine(op string, a, b Value, fn func(a, b Value) (Value, error)) (Value, error) {
	x, err := bagArg(op, a)
	if err != nil {
		return nil, err
	}
	y, err := bagArg(op, b)
	if err != nil {
		return nil, err
	}
	keys := make([]Value, 0, len(x.vals)+len(y.vals))
	vals := make([]Value, 0, len(x.vals)+len(y.vals))
	i, j := 0, 0
	zero := IntOf(0)
	for i < len(x.vals) || j < len(y.vals) {
		var c int
		switch {
		case i == len(x.vals):
			c = 1
		case j == len(y.vals):
			c = -1
		default:
			c = compareKeys(x, i, y, j)
		}
		var k, u, v Value
		switch {
		case c < 0:
			k, u, v = x.Key(i), x.vals[i], zero
			i++
		case c > 0:
			k, u, v = y.Key(j), zero, y.vals[j]
			j++
		default:
			k, u, v = x.Key(i), x.vals[i], y.vals[j]
			i++
			j++
		}
		n, err := fn(u, v)
		if err != nil {
			return nil, err
		}
		if n.(Int) > 0 {
			keys, vals = append(keys, k), append(vals, n)
		}
	}
	return shapeOf(keys).make(vals), nil
}
