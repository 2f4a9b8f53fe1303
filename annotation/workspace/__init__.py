"""The expert's blind workspace: pages, API, reads and forms (writes are in `annotation.services`)."""
