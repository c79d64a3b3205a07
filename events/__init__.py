"""Domain events: the outbox (events.outbox) and, later, their webhook delivery."""
