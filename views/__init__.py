"""Chain views: read-only services over the ecosystem's territory, auction, fragment and
lending programs (docs/views.md). Nothing here writes; nothing here knows HTTP."""
