"""Organizations: the territory hierarchy, memberships, the daily station KPI, the tech tree
and the mining bonus it grants. Flush-only services: callers commit (see docs/organizations.md).
"""
