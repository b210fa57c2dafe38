---- MODULE SafetyTemporal ----
\* A temporal property whose violation is finite, [](x >= 2 => [](x >= 1)),
\* with no TLCGet: x counts 0, 1, 2, 3 and then drops to 0. TLC finds the
\* violation while it searches and prints the behaviour up to x = 0 after
\* x = 3, exit 12: 5 states generated, 4 distinct, depth 4.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = (x + 1) % 4
Spec == Init /\ [][Next]_x
Prop == [](x >= 2 => [](x >= 1))
====
