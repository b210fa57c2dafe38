---- MODULE InstanceOverrideSubst ----
\* The instance substitutes y for x. TLC evaluates the cfg's B for A
\* inside the instance with that substitution, reading y where B says x
\* (here I!Init would be y = 2, false). That is refused as a cfg error.
EXTENDS InstOverrideBase
VARIABLE y
B == x = 2
I == INSTANCE InstOverrideBase WITH x <- y
RInit == x = 2 /\ y = 5
Spec == RInit /\ [][UNCHANGED <<x, y>>]_<<x, y>>
Prop == I!Init
====
