---- MODULE ErrBulletEmpty ----
\* A bullet with no operand: the next definition is at the module's left
\* edge, left of the bullet column.
VARIABLE x
Init == /\ x = 0
        /\
Next == UNCHANGED x
====
