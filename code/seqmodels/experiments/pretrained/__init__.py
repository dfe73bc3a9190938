"""The experiments of the chapter book/pretrained.md."""
