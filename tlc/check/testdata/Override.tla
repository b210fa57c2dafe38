---- MODULE Override ----
\* cfg overrides. Limit <- MyLimit replaces a constant by a definition
\* (3); Bound = 2 gives a definition a value (evaluated, it would fail:
\* CHOOSE over nothing); Step <- Double replaces an operator constant by a
\* definition of the same arity. x doubles while x < 3 * 2: 1, 2, 4, 8:
\* 4 distinct, 4 generated, depth 4.
EXTENDS Naturals
CONSTANTS Limit, Step(_)
VARIABLE x
MyLimit == 3
Double(n) == 2 * n
Bound == CHOOSE n \in {} : TRUE
Init == x = 1
Next == x < Limit * Bound /\ x' = Step(x)
====
