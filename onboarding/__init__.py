"""Project onboarding services: applications, the MCD whitelist, the project status machine
and the visibility of per-project user attributes (no HTTP here; see docs/onboarding.md)."""
