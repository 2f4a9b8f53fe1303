"""A service's ValidationError shown on the page that called it: on the form fields it names, or as plain messages."""

from collections.abc import Collection

from django import forms
from django.core.exceptions import ValidationError


def errors_into(form: forms.Form, exc: ValidationError, *, unshown: Collection[str] = ()) -> None:
    """Attach a service's errors to the fields they name that the form has and shows; the rest (and `unshown`) go to the form as a whole."""
    if hasattr(exc, "error_dict"):
        for field, messages in exc.message_dict.items():
            for message in messages:
                form.add_error(field if field in form.fields and field not in unshown else None, message)
    else:
        for message in exc.messages:
            form.add_error(None, message)


def messages_of(exc: ValidationError) -> list[str]:
    """Every message of a service's ValidationError, without the fields they name."""
    if hasattr(exc, "error_dict"):
        return [m for msgs in exc.message_dict.values() for m in msgs]
    return list(exc.messages)
