---- MODULE ErrNoConstant ----
CONSTANT N
VARIABLE x
Init == x = N
Next == UNCHANGED x
====
