---- MODULE InstOverrideBase ----
\* The module InstanceOverride* extend and instantiate.
EXTENDS Naturals
VARIABLE x
A == x = 1
Init == A
Next == x' = x
====
