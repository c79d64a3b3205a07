"""Domain events: the outbox (events.outbox) and the audit trail (events.audit)."""
