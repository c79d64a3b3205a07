"""The pages of passkeys (issue 44): adding one, and the button that signs in with one (on the
sign-in page, password-less, and on the two-step page, in place of the code). Plain HTML like
authserver.pages; the ceremony's options ride in a JSON script element, and a few lines of
script hand them to the browser (navigator.credentials) and post its answer in a form."""

from __future__ import annotations

from html import escape

from authserver.mfa_pages import _error, _hidden
from authserver.pages import _page as page
from authserver.passkeys import CREDENTIAL, TICKET, Ceremony

# Reads the options, asks the browser (create or get), posts the answer in the form.
_SCRIPT = (
    "<script>async function mccgwPasskey(form, create){"
    "const el=form.querySelector('.passkey-error');el.textContent='';"
    "const json=JSON.parse(form.querySelector('script[type=\"application/json\"]').textContent);"
    "try{const cred=create?await navigator.credentials.create({publicKey:"
    "PublicKeyCredential.parseCreationOptionsFromJSON(json)}):"
    "await navigator.credentials.get({publicKey:PublicKeyCredential.parseRequestOptionsFromJSON"
    f"(json)}});form.elements['{CREDENTIAL}'].value=JSON.stringify(cred.toJSON());"
    "form.submit();}catch(e){el.textContent='The passkey was not used: '+e.message;}}</script>"
)


def _options(ceremony: Ceremony) -> str:
    safe = ceremony.options.replace("<", "\\u003c")
    return f"<script type=application/json>{safe}</script>"


def _form(action: str, ceremony: Ceremony, button: str, fields: str, create: bool) -> str:
    return (
        f"<form method=post action='{escape(action, quote=True)}' class=passkey>"
        f"{fields}{_hidden(TICKET, ceremony.ticket)}{_hidden(CREDENTIAL, '')}{_options(ceremony)}"
        "<p class='error passkey-error' role=alert></p><button type=button id=passkey-button "
        f"onclick='mccgwPasskey(this.form, {str(create).lower()})'>{escape(button)}</button>"
        f"</form>{_SCRIPT}"
    )


def sign_in_button(action: str, ceremony: Ceremony, fields: str = "") -> str:
    """A form that signs in with a passkey (its answer posted with decision=approve)."""
    fields = _hidden("decision", "approve") + fields
    return "<p>Or:</p>" + _form(action, ceremony, "Sign in with a passkey", fields, False)


def enrol_start(*, action: str, error: str | None = None) -> str:
    return page(
        "Passkeys: add one",
        "<h1>Add a passkey</h1><p>A passkey (your device's screen lock, a security key) signs "
        "you in without a password, or in place of the authenticator app's code. "
        "Administrators may use one to open the operator console.</p>"
        f"{_error(error)}<form method=post action='{escape(action, quote=True)}'>"
        "<label>Username or e-mail <input name=username autocomplete=username required></label>"
        "<label>Password <input name=password type=password autocomplete=current-password "
        "required></label><label>Current code (only when you have an authenticator app) "
        "<input name=code autocomplete=one-time-code></label>"
        "<button name=step value=password>Continue</button></form>",
    )


def enrol_create(*, action: str, username: str, ceremony: Ceremony, error: str = "") -> str:
    fields = _hidden("step", "confirm")
    return page(
        "Passkeys: create it",
        f"<h1>Create the passkey</h1><p>For <strong>{escape(username)}</strong>. Your browser "
        "will ask how to keep it (this device, a phone, a security key).</p>"
        f"{_error(error)}{_form(action, ceremony, 'Create a passkey', fields, True)}",
    )


def enrol_done() -> str:
    return page(
        "Passkey added",
        "<h1>Passkey added</h1><p id=passkey-added>Next time, choose “Sign in with a passkey” on "
        "the sign-in page, or use it after your password in place of the code.</p>",
    )
