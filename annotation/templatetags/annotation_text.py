from django import template

from annotation.quality_text import pause_reason_text

register = template.Library()


@register.filter
def pause_reason(reason: str | None) -> str:
    """{{ profile.availability_reason|pause_reason }}: the platform's automatic pause in the reader's language; a person's words as written."""
    return pause_reason_text(reason)
