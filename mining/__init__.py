"""Mining: the canonical form of an activity, proof verification and the reward formula (pure
functions), and ``mining.bulk``: the flush-only set-based writes of a batch. The MCD limits are
the engine's (``engine.limits``, operation ``mining``)."""
