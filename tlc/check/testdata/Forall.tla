---- MODULE Forall ----
\* \A in an action: as a guard (a < 2) and as a conjunction that assigns
\* a'. b' \in {b, 1 - b} branches. States (a, b): (0,0) -> (1,0) (1,1);
\* (1,0) -> (2,0) (2,1); (1,1) -> (2,1) (2,0); a = 2 stops.
\* 5 distinct, 1 + 6 = 7 generated, depth 3.
EXTENDS Naturals
VARIABLES a, b
Init == a = 0 /\ b = 0
Next == /\ \A v \in {1, 2} : v + a < 4
        /\ \A v \in {"a"} : a' = a + 1
        /\ b' \in {b, 1 - b}
====
