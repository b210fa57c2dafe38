---- MODULE PropLiveWF ----
\* Under WF_x(Next) x reaches 5: <>(x = 5), [](x = 2 => <>(x = 4)),
\* x = 1 ~> x = 5 and <>[](x = 5) hold; so do the []P and [][A]_v parts
\* of Props, and its state predicate, checked on the initial state.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 5 /\ x' = x + 1
Spec == Init /\ [][Next]_x /\ WF_x(Next)
Reach == <>(x = 5)
Props == /\ x = 0
         /\ [](x <= 5)
         /\ [][x' = x + 1]_x
         /\ [](x = 2 => <>(x = 4))
         /\ (x = 1) ~> (x = 5)
         /\ <>[](x = 5)
====
