"""One module per chapter: the figures, tables and prose values its page shows."""
