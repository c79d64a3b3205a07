"""People's accounts: the operators' commands (``operators.py``), sign-up and the e-mailed links
that verify, reset and change (``lifecycle.py``, ``links.py``), the password rule
(``passwords.py``), deletion by the owner, and the mail they send (``mail.py``)."""
