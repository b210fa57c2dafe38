---- MODULE ErrBullets ----
\* The ELSE is left of the bullet column: it ends the conjunct, and the IF
\* has no ELSE.
VARIABLE x
Init == /\ IF TRUE THEN x = 0
       ELSE x = 1
Next == UNCHANGED x
====
