"""The experiments of the chapter book/lstm.md."""
