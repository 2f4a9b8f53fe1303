"""The knowledge library's writes: its entries and cases (knowledge), the quote check (quotes), JSON Lines (knowledge_io)."""
