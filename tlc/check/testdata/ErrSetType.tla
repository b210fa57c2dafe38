---- MODULE ErrSetType ----
\* {1} \cup 2 in an invariant: the initial state's invariant fails with an
\* evaluation error, not a violation.
VARIABLE x
Init == x = {1}
Next == UNCHANGED x
Inv == x \cup 2 = x
====
