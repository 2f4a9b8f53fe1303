"""Per-language date and number formats (settings.FORMAT_MODULE_PATH); Django's own fill in the rest.

Templates name a format (`|date:"DATETIME_FORMAT"`) instead of spelling one, so a reader in
Chinese sees `2026年11月23日 14:05` and a reader in English `2026-11-23 14:05`. Digits stay Arabic
in both languages.
"""
