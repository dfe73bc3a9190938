"""Training loops: one recurrent classifier on the readable models, a pack of classifiers (many
seeds or arms side by side) on the kernel, and biLMs."""
