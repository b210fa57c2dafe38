---- MODULE PropOrAlways ----
\* <> of a disjunction with []: not one of the forms, checked through the
\* tableau. TLC: violated, x = 0 stuttering (exit 13).
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 5 /\ x' = x + 1
Spec == Init /\ [][Next]_x
Odd == <>((x = 1) \/ [](x = 5))
====
