"""Writes of the judge runner: endpoints and templates, the calls to an endpoint, and runs."""
