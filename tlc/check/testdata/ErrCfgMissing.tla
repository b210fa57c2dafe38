---- MODULE ErrCfgMissing ----
VARIABLE x
Init == x = 0
Next == UNCHANGED x
====
