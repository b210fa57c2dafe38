package syntax

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// moduleSrc wraps units into a module T.
func moduleSrc(units string) string {
	return "---- MODULE T ----\n" + units + "\n====\n"
}

// parseModule parses the single module T built from units.
func parseModule(t *testing.T, units string) *Module {
	t.Helper()
	mods, err := ParseSource("T.tla", []byte(moduleSrc(units)))
	require.NoError(t, err, "units:\n%s", units)
	require.NotEmpty(t, mods)
	return mods[0]
}

// defBody returns the rendered body of definition name in units.
func defBodies(t *testing.T, units string) map[string]string {
	t.Helper()
	m := parseModule(t, units)
	out := map[string]string{}
	for _, u := range m.Units {
		switch d := u.(type) {
		case *OpDef:
			out[d.Name] = d.Body.String()
		case *FuncDef:
			out[d.Name] = d.Body.String()
		}
	}
	return out
}

func TestBulletLists(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"simple conjunction", `
Foo == /\ a
       /\ b
       /\ c`, `(/\ a /\ b /\ c)`},
		{"simple disjunction on next line", `
Foo ==
  \/ a
  \/ b`, `(\/ a \/ b)`},
		{"single item", `
Foo == /\ a = 1`, `(/\ (a = 1))`},
		{"nested mixed lists", `
Foo == /\ \/ a
          \/ b
       /\ c
       /\ \/ /\ d
             /\ e
          \/ f`, `(/\ (\/ a \/ b) /\ c /\ (\/ (/\ d /\ e) \/ f))`},
		{"inner list ended by an outdented disjunction", `
Foo == \/ /\ a
          /\ b
       \/ c`, `(\/ (/\ a /\ b) \/ c)`},
		{"inner disjunction ended by outer conjunction", `
Foo == /\ x = 1
       /\ \/ y = 2
          \/ y = 3
       /\ z = 4`, `(/\ (x = 1) /\ (\/ (y = 2) \/ (y = 3)) /\ (z = 4))`},
		{"item continued at a deeper column", `
Foo == /\ x =
            1 + 2
       /\ y`, `(/\ (x = (1 + 2)) /\ y)`},
		{"infix conjunction inside an item", `
Foo == /\ a /\ b
       /\ c \/ d`, `(/\ (a /\ b) /\ (c \/ d))`},
		{"deeper bullet in an item is infix", `
Foo == /\ a
          /\ b
       /\ c`, `(/\ (a /\ b) /\ c)`},
		{"list inside parentheses", `
Foo == (/\ a
        /\ b) \/ c`, `((/\ a /\ b) \/ c)`},
		{"closing parenthesis at the bullet column", `
Foo == /\ x = (1 +
       2)
       /\ y`, `(/\ (x = (1 + 2)) /\ y)`},
		{"list inside a function", `
Foo == [i \in S |-> /\ a[i]
                    /\ b[i]]`, `[i \in S |-> (/\ a[i] /\ b[i])]`},
		{"IF inside bullets", `
Foo == /\ IF a
            THEN b
            ELSE c
       /\ d`, `(/\ (IF a THEN b ELSE c) /\ d)`},
		{"IF with bullet branches", `
Foo == IF a THEN /\ x = 1
                 /\ y = 2
            ELSE /\ x = 3
                 /\ y = 4`, `(IF a THEN (/\ (x = 1) /\ (y = 2)) ELSE (/\ (x = 3) /\ (y = 4)))`},
		{"LET inside bullets", `
Foo == /\ LET a == 1
              b == 2
          IN  a + b
       /\ c`, `(/\ (LET a == 1 b == 2 IN (a + b)) /\ c)`},
		{"quantifier body list", `
Foo == \E x \in S : /\ x > 1
                    /\ x < 5
Bar == 0`, `(\E x \in S : (/\ (x > 1) /\ (x < 5)))`},
		{"quantifier in an item ends at the next bullet", `
Foo == /\ \A x \in S : x > 1
       /\ y`, `(/\ (\A x \in S : (x > 1)) /\ y)`},
		{"CASE arms inside a bullet", `
Foo == /\ CASE a -> 1
            [] b -> 2
       /\ c`, `(/\ (CASE a -> 1 [] b -> 2) /\ c)`},
		{"list followed by an infix operator on an outdented line", `
Foo ==
    /\ a
    /\ b
  => c`, `((/\ a /\ b) => c)`},
		{"list as the right operand", `
Foo == x = 1 =>
         /\ a
         /\ b`, `((x = 1) => (/\ a /\ b))`},
		{"other kind at same column ends the list", `
Foo == \/ a
       /\ b`, `((\/ a) /\ b)`},
		{"ASCII synonyms as bullets", `
Foo == \land a
       \land b`, `(/\ a /\ b)`},
		{"junction in EXCEPT", `
Foo == /\ x' = [x EXCEPT ![1] = 2,
                         ![2] = 3]
       /\ UNCHANGED y`, `(/\ ((x') = [x EXCEPT ![1] = 2, ![2] = 3]) /\ (UNCHANGED y))`},
		{"primed list item with subscript action", `
Spec == /\ Init
        /\ [][Next]_vars
        /\ WF_vars(Next)`, `(/\ Init /\ ([][Next]_vars) /\ WF_vars(Next))`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bodies := defBodies(t, c.src)
			name := "Foo"
			if _, ok := bodies[name]; !ok {
				name = "Spec"
			}
			assert.Equal(t, c.want, bodies[name])
		})
	}
}

func TestBulletListsEndDefinitions(t *testing.T) {
	bodies := defBodies(t, `
Init == /\ x = 0
        /\ y = 0
Next == \/ /\ x' = x + 1
           /\ y' = y
        \/ /\ y' = y + 1
           /\ x' = x
vars == <<x, y>>`)
	assert.Equal(t, `(/\ (x = 0) /\ (y = 0))`, bodies["Init"])
	assert.Equal(t, `(\/ (/\ ((x') = (x + 1)) /\ ((y') = y)) \/ (/\ ((y') = (y + 1)) /\ ((x') = x)))`, bodies["Next"])
	assert.Equal(t, `<<x, y>>`, bodies["vars"])
}

func TestBulletListItems(t *testing.T) {
	m := parseModule(t, `
Foo == /\ a
       /\ \/ b
          \/ c`)
	bl, ok := m.Units[0].(*OpDef).Body.(*BulletList)
	require.True(t, ok)
	assert.Equal(t, `/\`, bl.Kind)
	require.Len(t, bl.Items, 2)
	inner, ok := bl.Items[1].(*BulletList)
	require.True(t, ok)
	assert.Equal(t, `\/`, inner.Kind)
	assert.Len(t, inner.Items, 2)
	assert.Equal(t, Pos{File: "T.tla", Line: 3, Col: 8}, bl.Pos)
}

func TestBulletErrors(t *testing.T) {
	cases := []struct{ name, units, want string }{
		{"ELSE left of the bullet", `
Foo == /\ IF a THEN b
       ELSE c`, `T.tla:4:8: expected ELSE, found "ELSE" at or left of the junction list bullet column 8`},
		{"operand missing after a bullet", `
Foo == /\ a
       /\
Bar == 1`, `T.tla:5:1: expected expression, found identifier Bar at or left of the junction list bullet column 8`},
		{"stray item left over", `
Foo == /\ a
       /\ b
       c`, `T.tla:5:8: expected definition or declaration, found identifier c`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSource("T.tla", []byte(moduleSrc(c.units)))
			require.Error(t, err)
			assert.Equal(t, c.want, err.Error())
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

func TestBulletDeepNesting(t *testing.T) {
	// Ten levels of alternating lists, each one column deeper.
	var b strings.Builder
	b.WriteString("Foo ==\n")
	for i := 0; i < 10; i++ {
		b.WriteString(strings.Repeat(" ", 2+3*i))
		if i%2 == 0 {
			b.WriteString(`/\ `)
		} else {
			b.WriteString(`\/ `)
		}
		b.WriteString("a" + string(rune('0'+i)) + "\n")
	}
	m := parseModule(t, b.String())
	require.Len(t, m.Units, 1)
	body := m.Units[0].(*OpDef).Body.String()
	// Each deeper bullet follows a complete item, so it is infix.
	assert.True(t, strings.HasPrefix(body, `(/\ `), body)
	assert.Contains(t, body, "a9")
}
