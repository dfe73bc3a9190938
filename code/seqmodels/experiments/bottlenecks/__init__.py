"""The experiments of the chapter book/bottlenecks.md."""
