---- MODULE InstanceOverrideQualified ----
\* I!A itself is the instance's own A (x = 1), not the cfg's B: TLC
\* reports "Property I!A is violated by the initial state" (exit 13).
EXTENDS InstOverrideBase
B == x = 2
I == INSTANCE InstOverrideBase
RInit == x = 2
Spec == RInit /\ [][Next]_x
Prop == I!A
====
