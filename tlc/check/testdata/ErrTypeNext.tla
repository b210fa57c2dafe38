---- MODULE ErrTypeNext ----
\* A run-time type error in Next: 1 + "a" when x = 1. Exit 75; the error
\* names the position of the +; the trace leads to the state whose
\* successors failed.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = IF x = 1 THEN 1 + "a" ELSE x + 1
====
