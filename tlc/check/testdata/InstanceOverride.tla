---- MODULE InstanceOverride ----
\* The cfg's A <- B overrides A where InstOverrideBase defines it, so
\* I!Init, whose body uses A, means B, as in TLC (etcd raft's
\* Traceetcdraft.cfg overrides InitServerVars, which etcd!Init uses): the
\* initial state x = 2 satisfies the property, and every step stutters on
\* x. One distinct state, two generated (the initial state and its
\* stuttering successor), depth 1; TLC: no error.
EXTENDS InstOverrideBase
B == x = 2
I == INSTANCE InstOverrideBase
RInit == x = 2
Spec == RInit /\ [][Next]_x
Prop == I!Init /\ [][I!Next]_x
====
