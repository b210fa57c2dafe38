---- MODULE Symmetry ----
\* Three interchangeable processes toggle between idle and busy. Without
\* symmetry: 2^3 = 8 states, 1 + 8 * 3 = 25 generated, depth 4 (see
\* NoSymmetry). Under Permutations(Proc) a state is known by its number of
\* busy processes: 4 distinct; the 4 explored states have 3 successors
\* each: 1 + 12 = 13 generated, depth 4.
EXTENDS TLC
CONSTANT Proc
VARIABLE pc
Init == pc = [p \in Proc |-> "idle"]
Next == \E p \in Proc :
          \/ pc[p] = "idle" /\ pc' = [pc EXCEPT ![p] = "busy"]
          \/ pc[p] = "busy" /\ pc' = [pc EXCEPT ![p] = "idle"]
Sym == Permutations(Proc)
====
