"""The OAuth 2.0 / OpenID Connect authorization server, built on authlib, mounted at /auth."""
