---- MODULE ErrExtends ----
EXTENDS NoSuchModule
VARIABLE x
Init == x = 0
Next == UNCHANGED x
====
