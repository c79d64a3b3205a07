"""The transaction engine's services: amount limits, the transfer state machine,
operator actions, reconciliation and the recovery sweep.

Everything here only flushes; the caller (a route's write_context or an activity) commits.
"""
