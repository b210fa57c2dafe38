---- MODULE NoView ----
EXTENDS View
====
