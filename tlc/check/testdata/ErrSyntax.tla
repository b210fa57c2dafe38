---- MODULE ErrSyntax ----
VARIABLE x
Init == x = 
Next == UNCHANGED x
====
