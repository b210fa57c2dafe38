---- MODULE LocalHidden ----
\* A LOCAL definition of an extended module is not a name of the extending
\* one. Reference TLC: SANY reports the unknown operator Double (a parse
\* error, exit code 150).
EXTENDS LocalDefsBase
VARIABLE n
Init == n = Double(1)
Next == UNCHANGED n
====
