---- MODULE InvShortest ----
\* x and y grow by one at a time; Inv fails when x + y = 3 with x # y
\* impossible to tell apart... so Inv is x < 2 \/ y > 0: the only
\* violations have y = 0, x = 2, reached by the unique shortest path
\* (0,0) (1,0) (2,0). Levels: {(0,0)}, {(1,0), (0,1)}, then (2,0) is the
\* first successor of (1,0): 1 + 2 + 1 = 4 distinct, 1 + 2 + 1 = 4
\* generated when the search stops.
EXTENDS Naturals
VARIABLES x, y
Init == x = 0 /\ y = 0
Next == \/ x' = x + 1 /\ y' = y
        \/ y' = y + 1 /\ x' = x
Inv == x < 2 \/ y > 0
====
