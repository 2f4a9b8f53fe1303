"""Signals other apps listen to without the annotation app knowing them."""

from django.dispatch import Signal

# Sent once the transaction that submitted an assignment has committed; kwargs: assignment.
assignment_submitted = Signal()
