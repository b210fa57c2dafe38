---- MODULE View ----
\* x cycles through 0..2, t toggles. Under VIEW x, the states (x, 0) and
\* (x, 1) are one: explored (0,0) -> (1,0) (0,1); (1,0) -> (2,0) (1,1);
\* (2,0) -> (0,0) (2,1). 3 distinct, 1 + 6 = 7 generated, depth 3.
\* Without the view (NoView): 6 distinct, 1 + 12 = 13 generated, depth 4.
EXTENDS Naturals
VARIABLES x, t
Init == x = 0 /\ t = 0
Next == \/ x' = (x + 1) % 3 /\ t' = t
        \/ t' = 1 - t /\ x' = x
V == x
====
