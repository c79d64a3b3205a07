"""Mining: the canonical form of an activity, proof verification, the reward formula and the
per-project MCD limits. Pure functions except ``mining.limits`` (flush-only DB helpers)."""
