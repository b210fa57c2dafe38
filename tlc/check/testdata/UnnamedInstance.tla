---- MODULE UnnamedInstance ----
\* An unnamed INSTANCE: Channel's definitions become this module's, its
\* constants and variable are this module's own (implicit substitution),
\* set in the cfg: Msgs = {m1}, Cap = 3: lengths 0..3, 4 states, 1 + 1 +
\* 2 + 2 + 1 = 7 generated, depth 4.
EXTENDS Naturals
CONSTANTS Msgs, Cap
VARIABLE chan
INSTANCE Channel
====
