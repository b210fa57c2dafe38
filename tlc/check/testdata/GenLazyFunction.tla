---- MODULE GenLazyFunction ----
\* A function TLC has not built, applied in an action, is enumerated like
\* an operator's body: each way it holds continues and generates a state.
\* This is how VoteProof's SafeAt (a LET-defined recursive function with
\* \E inside) makes TLC generate 318,877 states for 6,962 distinct ones.
\* A constant function definition over an interval is built once, before
\* the search, and only applied.
\* Reference TLC: 3 distinct states, 91 generated (1 + 3 + 2 + 24 per
\* state, and the initial one), depth 3.
EXTENDS Integers
VARIABLE x
Init == x = 0
\* Built before the search (constant, not recursive, domain an interval):
\* Built[1] is applied, one state.
Built[i \in 1..3] == \E j \in 1..3 : j >= i
\* Recursive: enumerated. Rec[3] holds in 3 ways.
Rec[i \in 0..3] == IF i = 0 THEN TRUE ELSE \/ Rec[i - 1] \/ i > 1
Safe(b) ==
  LET SA[bb \in 0..3] ==
        \/ bb = 0
        \/ \E q \in {1, 2} : \E c \in -1..(bb - 1) : (c # -1) => SA[c]
  IN SA[b]
Next ==
  \/ Built[1] /\ x' = (x + 1) % 3                                 \* 1 per state
  \/ Rec[3] /\ x' = (x + 1) % 3                                   \* 3 per state
  \/ [i \in 1..3 |-> \E j \in 1..3 : j >= i][2] /\ x' = (x + 1) % 3 \* 2 per state
  \/ Safe(2) /\ x' = (x + 1) % 3                                  \* 24 per state
====
