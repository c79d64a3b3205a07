"""Response and request models shared by more than one route module (or by a route module and
the console): each resource's wire shape, written once (api.routes import them, never each
other)."""
