---- MODULE MCCommit ----
\* Commit checked through an INSTANCE, as the Examples' MC specs do: TLC
\* keeps the instance's next-state relation whole (its variables are
\* substituted), unnamed, located at the INSTANCE statement.
CONSTANTS RM
VARIABLES rmState, tmState, msgs
INSTANCE Commit
====
