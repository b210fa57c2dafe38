// Package sample is the instrumented code of linecov's tests. Comments
// starting "unit:" mark the lines the tests expect covered or not.
package sample

// A doubles x and caps it.
func A(x int) int {
	y := x * 2 // unit:A-entry
	if y > 10 {
		return y - 10 // unit:A-capped
	}
	return y // unit:A-small
}

// Counter counts with a method and a function literal.
type Counter struct{ n int }

// B adds k to c, one at a time.
func (c *Counter) B(k int) int {
	add := func() {
		c.n++ // unit:B-literal
	}
	for i := 0; i < k; i++ {
		add() // unit:B-loop
	}
	return c.n // unit:B-exit
}
