"""Webhook delivery: signing, receiver URL checks, senders and the delivery pump."""
