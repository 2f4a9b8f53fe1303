"""The knowledge library: guidelines, the FAQ and the case library (pages, API, reads and search)."""
