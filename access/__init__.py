"""Who may do what, below both HTTP adapters (the API and the authorization server) and above
the services that act on it: consent (``access.consent``: has this user authorized this project
for this scope?), the scope vocabulary and its one check (``access.scopes``), rate limiting
(``access.ratelimit``, with the sign-in throttle in ``access.login``) and token revocation
(``access.revocation``). It reads ``db`` and Redis; it imports no adapter and no service."""
