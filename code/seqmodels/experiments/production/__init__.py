"""The experiments of the chapter book/production.md."""
