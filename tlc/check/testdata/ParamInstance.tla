---- MODULE ParamInstance ----
\* A parameterized instance Ch(c) with c a variable: two channels of one
\* message kind and capacity 1, each empty or full: 4 states. Each state
\* has 2 successors (one per channel, Send or Recv): 1 + 8 = 9 generated,
\* depth 3.
EXTENDS Naturals
VARIABLES c1, c2
Ch(c) == INSTANCE Channel WITH Msgs <- {"m"}, Cap <- 1, chan <- c
Init == Ch(c1)!ChInit /\ Ch(c2)!ChInit
Next == \/ Ch(c1)!ChNext /\ UNCHANGED c2
        \/ Ch(c2)!ChNext /\ UNCHANGED c1
Inv == Ch(c1)!Size + Ch(c2)!Size =< 2
====
