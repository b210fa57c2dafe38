---- MODULE ErrInitIncomplete ----
VARIABLES x, y
Init == x = 0
Next == UNCHANGED <<x, y>>
====
