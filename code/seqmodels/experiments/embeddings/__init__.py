"""The experiments of the chapter book/embeddings.md."""
