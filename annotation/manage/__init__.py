"""Campaign management for admins, and the expert's own profile: pages, API, reads and forms (writes are in `annotation.services`)."""
